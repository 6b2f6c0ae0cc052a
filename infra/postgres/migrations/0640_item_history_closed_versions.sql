-- Time travel keeps only closed versions in item_history; the current version of an item is its
-- `items` row, valid from `items.valid_from` (projections/itemsProjection.ts). Before, every item's
-- current version was in both tables: a second copy of every live item (148 of 969 MB after the peer
-- benchmark's seed of 100,000 articles), and each update closed the open history row and opened a
-- new one (two statements) besides upserting `items`. Now an update is one statement that moves the
-- replaced row into item_history, and a create writes no history row at all.
--
-- Existing databases: each item's open history row gives its `valid_from`, then the open rows go.
-- A row of `items` without an open history row (written straight into a scratch database by a
-- benchmark seed) keeps the default: valid from when this migration ran.

-- Item counts follow `items` through triggers (0104). An update's statement-level trigger with
-- transition tables ran for every update, to find nothing to count in nearly all of them: a row
-- trigger that runs only when the row's status or liveness changes does the same work. First, so
-- that this migration's own UPDATE below runs no count trigger at all. The trigger needs its
-- function now; functions/svc_item_counts_after_row_update.sql holds its current definition.
CREATE OR REPLACE FUNCTION svc_item_counts_after_row_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT OLD.site_id, OLD.collection, OLD.status, -1 WHERE OLD.deleted_at IS NULL
  UNION ALL
  SELECT NEW.site_id, NEW.collection, NEW.status, 1 WHERE NEW.deleted_at IS NULL;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS items_count_update ON items;
CREATE TRIGGER items_count_update AFTER UPDATE ON items FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
        OR OLD.collection <> NEW.collection OR OLD.site_id <> NEW.site_id)
  EXECUTE FUNCTION svc_item_counts_after_row_update();
DROP FUNCTION IF EXISTS svc_item_counts_after_update();

ALTER TABLE items ADD COLUMN IF NOT EXISTS valid_from timestamptz NOT NULL DEFAULT now();

UPDATE items i SET valid_from = h.valid_from
  FROM item_history h
 WHERE h.valid_to IS NULL AND h.site_id = i.site_id AND h.collection = i.collection AND h.id = i.id;

DELETE FROM item_history WHERE valid_to IS NULL;
DROP INDEX IF EXISTS item_history_open_row;
ALTER TABLE item_history DROP COLUMN IF EXISTS validity;
ALTER TABLE item_history ALTER COLUMN valid_to SET NOT NULL;
