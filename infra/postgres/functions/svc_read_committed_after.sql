-- Committed events after a cursor in log order, without svc_read_all's horizon. Only for readers
-- that may see an older transaction's events later than newer ones and catch them up through
-- svc_read_all (the realtime tailer): it must not wait for every open transaction of the server.
CREATE OR REPLACE FUNCTION svc_read_committed_after(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS SETOF events LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT * FROM events
   WHERE (tx_id, position) > (p_after_tx, p_after_position)
   ORDER BY tx_id, position
   LIMIT p_limit
$$;
