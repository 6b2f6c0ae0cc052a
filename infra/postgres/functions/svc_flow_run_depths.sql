-- The depth of the runs that caused writes (the flows reactor's loop guard), by run id alone.
CREATE OR REPLACE FUNCTION svc_flow_run_depths(p_ids uuid[])
RETURNS TABLE (id uuid, depth integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY SELECT r.id, r.depth FROM flow_runs r WHERE r.id = ANY(p_ids);
END $$;
REVOKE ALL ON FUNCTION svc_flow_run_depths(uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_run_depths(uuid[]) TO svc_app;
