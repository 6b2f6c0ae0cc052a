-- Active schedule flows of every site whose next run has come (by p_now), oldest first, at most
-- p_limit: the scheduler's `flows-schedule` task, on the partial index `flows_due`; flows not yet due
-- cost nothing.
CREATE OR REPLACE FUNCTION svc_flow_due_schedules(p_now timestamptz, p_limit integer)
RETURNS TABLE (site_id text, id uuid)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT f.site_id, f.id FROM flows f
   WHERE f.status = 'active' AND f.trigger = 'schedule' AND f.next_run_at <= p_now
   ORDER BY f.next_run_at, f.site_id, f.id
   LIMIT p_limit;
END $$;
REVOKE ALL ON FUNCTION svc_flow_due_schedules(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_due_schedules(timestamptz, integer) TO svc_app;
