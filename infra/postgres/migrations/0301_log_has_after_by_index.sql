-- svc_log_has_after ran its EXISTS as a sequential scan of the whole log: the planner expects many
-- events after an arbitrary cursor and so a quick first hit, but the projection daemon asks at the
-- head of the log, where nothing matches. Each check read every event (3.7 s at 1.25 million
-- events), and an idle daemon asks after each of its rounds. Asking for the first event in log order
-- makes it one probe of events_global_order wherever the cursor stands.
CREATE OR REPLACE FUNCTION svc_log_has_after(p_after_tx xid8, p_after_position bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT EXISTS (
    SELECT 1 FROM (
      SELECT 1 FROM events WHERE (tx_id, position) > (p_after_tx, p_after_position) ORDER BY tx_id, position LIMIT 1
    ) first_after)
$$;
