-- Prunes at most p_limit runs of every site finished before p_horizon, with their steps (the flows
-- area's retention; the log keeps them): answers how many runs it removed.
CREATE OR REPLACE FUNCTION svc_flow_runs_prune(p_horizon timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE
  removed integer;
BEGIN
  WITH old AS (SELECT r.site_id, r.id FROM flow_runs r WHERE r.finished_at < p_horizon ORDER BY r.finished_at LIMIT p_limit),
       steps AS (DELETE FROM flow_run_steps s USING old WHERE s.site_id = old.site_id AND s.run_id = old.id)
  DELETE FROM flow_runs r USING old WHERE r.site_id = old.site_id AND r.id = old.id;
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END $$;
REVOKE ALL ON FUNCTION svc_flow_runs_prune(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_runs_prune(timestamptz, integer) TO svc_app;
