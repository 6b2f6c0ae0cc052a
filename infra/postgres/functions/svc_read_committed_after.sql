-- Committed events after a cursor in log order, without svc_read_all's horizon. Only for readers
-- that may see an older transaction's events later than newer ones and catch them up through
-- svc_read_all (the realtime tailer): it must not wait for every open transaction of the server.
-- PL/pgSQL so that the plan is kept for the session (see svc_read_stream_head).
CREATE OR REPLACE FUNCTION svc_read_committed_after(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS SETOF events LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT * FROM events
   WHERE (tx_id, position) > (p_after_tx, p_after_position)
   ORDER BY tx_id, position
   LIMIT p_limit;
END $$;
