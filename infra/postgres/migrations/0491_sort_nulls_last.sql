-- Sorts put items without a value last in both directions (src/query/compileSort.ts). The default
-- btree order (ASC NULLS LAST) serves `sort=x` forward and `sort=-x&nulls=first` backward; the new
-- default `sort=-x` is `DESC NULLS LAST`, which only an index of that order serves. So each sortable
-- column gets a second index, DESC NULLS LAST (walked backward it also serves `sort=x&nulls=first`).
-- id, created_at and updated_at always have a value: their order needs no NULLS clause and no new index.

-- The manual-order column (status has no such index: its few values make a sort by it read a whole
-- group for the id tie-break anyway).
CREATE INDEX IF NOT EXISTS items_sort_desc ON items (site_id, collection, sort DESC NULLS LAST) WHERE deleted_at IS NULL;

-- Field indexes: a text or numeric field (the kinds lists sort by) wants its kind's index and, for
-- the descending order, `<kind>:desc` (svc_item_field_index_statement builds it DESC NULLS LAST).
-- Boolean and JSON fields get no twin: a sort by two values reads a whole group for the id tie-break
-- anyway, and JSON fields are filtered, not sorted, through their index.
ALTER TABLE item_field_indexes DROP CONSTRAINT IF EXISTS item_field_indexes_kind_check;
ALTER TABLE item_field_indexes ADD CONSTRAINT item_field_indexes_kind_check
  CHECK (kind IN ('text', 'numeric', 'boolean', 'json', 'text:desc', 'numeric:desc'));
