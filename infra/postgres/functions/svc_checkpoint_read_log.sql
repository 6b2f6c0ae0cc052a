-- The global log after the checkpoint task's cursor, in log order (transaction, position). Like
-- svc_read_all, it only returns events of transactions below the horizon of those that may still
-- commit, so an event that commits later always sorts after the events already returned. It returns
-- only what a checkpoint hashes and records, for every site (so it runs as the log's owner).
-- It is PL/pgSQL so that the session keeps the plan (see svc_read_all).
CREATE OR REPLACE FUNCTION svc_checkpoint_read_log(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS TABLE (site_id text, stream_id text, stream_position bigint, global_position bigint, tx_id xid8, hash text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT e.site_id, e.stream_id, e.stream_position, e.position, e.tx_id, e.hash FROM events e
   WHERE (e.tx_id, e.position) > (p_after_tx, p_after_position)
     AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY e.tx_id, e.position
   LIMIT p_limit;
END $$;
REVOKE ALL ON FUNCTION svc_checkpoint_read_log(xid8, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_checkpoint_read_log(xid8, bigint, integer) TO svc_app;
