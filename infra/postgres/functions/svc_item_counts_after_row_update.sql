-- See svc_item_counts_after_insert: an update that moves an item between statuses, or in or out of
-- the deleted state (the trigger's WHEN, migration 0640, runs it for those rows only).
CREATE OR REPLACE FUNCTION svc_item_counts_after_row_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT OLD.site_id, OLD.collection, OLD.status, -1 WHERE OLD.deleted_at IS NULL
  UNION ALL
  SELECT NEW.site_id, NEW.collection, NEW.status, 1 WHERE NEW.deleted_at IS NULL;
  RETURN NULL;
END $$;
