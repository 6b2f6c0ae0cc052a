-- Keep the search document lean (#16). Each row held its text three times: `texts` (per field,
-- for highlights and to drop a removed field), `title_text` and `body_text` (the same text joined,
-- only there to feed the generated `document`), and `document` itself. The projection now computes
-- `document` in its INSERT from the joined text it sends as parameters, with the same expression,
-- so the two joined columns go.
--
-- `version` and `indexed_at` go too: nothing reads them, and the projection now leaves a document
-- alone when an item event did not change its text (a views count, a status). With them, a row
-- would depend on which events a batch happened to hold (a rebuild folds each item's events of a
-- batch to the last one), so a rebuild would not give the same rows.
--
-- DROP EXPRESSION turns the generated column into a plain one and keeps every stored value, so
-- existing rows need no recomputation: they hold what the new INSERT would write.
ALTER TABLE search_documents ALTER COLUMN document DROP EXPRESSION;
ALTER TABLE search_documents ALTER COLUMN document SET NOT NULL;
ALTER TABLE search_documents
  DROP COLUMN title_text,
  DROP COLUMN body_text,
  DROP COLUMN version,
  DROP COLUMN indexed_at;

-- A dropped column's bytes stay in each row until the row is rewritten. CLUSTER rewrites the table
-- (nulling dropped columns) and rebuilds its indexes inside this migration's transaction, which
-- VACUUM FULL cannot; the table is then no longer marked as clustered, as before.
CLUSTER search_documents USING search_documents_pkey;
ALTER TABLE search_documents SET WITHOUT CLUSTER;
