-- Staged agent actions of every site whose veto window ended by p_now and that nobody vetoed, oldest
-- first, at most p_limit: the scheduler's `agent-staged` task, on the partial index `agent_staged_due`.
CREATE OR REPLACE FUNCTION svc_agent_due_staged(p_now timestamptz, p_limit integer)
RETURNS TABLE (site_id text, id uuid)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT s.site_id, s.id FROM agent_staged_actions s
   WHERE s.status = 'pending' AND s.run_after <= p_now
   ORDER BY s.run_after, s.site_id, s.id
   LIMIT p_limit;
END $$;
REVOKE ALL ON FUNCTION svc_agent_due_staged(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_agent_due_staged(timestamptz, integer) TO svc_app;
