-- The global log in a stable order, for every site: only transactions that can no longer commit
-- below the reader's horizon are returned, so a slow writer never makes a reader skip an event.
-- PL/pgSQL so that the plan is kept for the session (see svc_read_stream_head).
CREATE OR REPLACE FUNCTION svc_read_all(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS SETOF events LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT * FROM events
   WHERE (tx_id, position) > (p_after_tx, p_after_position)
     AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY tx_id, position
   LIMIT p_limit;
END $$;
