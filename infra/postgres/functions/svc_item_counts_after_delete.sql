-- See svc_item_counts_after_insert.
CREATE OR REPLACE FUNCTION svc_item_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
