-- Runs of every site in one state since before p_before (`queued`: by when they were queued, for the
-- dispatcher, schedule runs at once; `running`: by when they began executing, for the interrupted-run
-- sweep), oldest first, at most p_limit, on the partial index `flow_runs_queued` or a scan of the few running.
CREATE OR REPLACE FUNCTION svc_flow_runs_in_state(p_status text, p_before timestamptz, p_limit integer)
RETURNS TABLE (site_id text, id uuid)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF p_status = 'queued' THEN
    RETURN QUERY
    SELECT r.site_id, r.id FROM flow_runs r
     WHERE r.status = 'queued' AND (r.trigger = 'schedule' OR r.started_at < p_before)
     ORDER BY r.started_at LIMIT p_limit;
  ELSE
    RETURN QUERY
    SELECT r.site_id, r.id FROM flow_runs r
     WHERE r.status = p_status AND r.executing_at < p_before
     ORDER BY r.executing_at LIMIT p_limit;
  END IF;
END $$;
REVOKE ALL ON FUNCTION svc_flow_runs_in_state(text, timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_runs_in_state(text, timestamptz, integer) TO svc_app;
