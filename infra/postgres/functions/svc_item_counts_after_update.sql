-- See svc_item_counts_after_insert: an update moves items between statuses, or in and out of the
-- deleted state.
CREATE OR REPLACE FUNCTION svc_item_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, sum(change) FROM (
    SELECT site_id, collection, status, -1 AS change FROM old_rows WHERE deleted_at IS NULL
    UNION ALL
    SELECT site_id, collection, status, 1 FROM new_rows WHERE deleted_at IS NULL
  ) changes
  GROUP BY 1, 2, 3 HAVING sum(change) <> 0;
  RETURN NULL;
END $$;
