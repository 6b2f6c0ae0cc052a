-- Live-item counts per (site, collection, status): triggers on `items` append the change of each
-- statement to item_count_deltas (see svc_compact_item_counts).
CREATE OR REPLACE FUNCTION svc_item_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
