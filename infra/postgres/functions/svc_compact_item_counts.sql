-- Folds each key's rows of item_count_deltas into one (rows appended meanwhile stay for the next
-- run: the DELETE only takes the rows its snapshot sees). Keys whose sum is 0 leave no row.
CREATE OR REPLACE FUNCTION svc_compact_item_counts() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  folded integer;
BEGIN
  WITH moved AS (
    DELETE FROM item_count_deltas RETURNING site_id, collection, status, live
  ), kept AS (
    INSERT INTO item_count_deltas (site_id, collection, status, live)
    SELECT site_id, collection, status, sum(live) FROM moved GROUP BY 1, 2, 3 HAVING sum(live) <> 0
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM moved) - (SELECT count(*) FROM kept) INTO folded;
  RETURN folded;
END $$;
REVOKE ALL ON FUNCTION svc_compact_item_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_compact_item_counts() TO svc_app;
