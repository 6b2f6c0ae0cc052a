-- True when the log holds committed events after the cursor that svc_read_all cannot return yet
-- (an older transaction anywhere on the server is still open): the projection daemon then looks
-- again within milliseconds. Asks for the first event in log order, one probe of events_global_order
-- wherever the cursor stands (an EXISTS over the range was planned as a scan of the whole log).
CREATE OR REPLACE FUNCTION svc_log_has_after(p_after_tx xid8, p_after_position bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT EXISTS (
    SELECT 1 FROM (
      SELECT 1 FROM events WHERE (tx_id, position) > (p_after_tx, p_after_position) ORDER BY tx_id, position LIMIT 1
    ) first_after)
$$;
