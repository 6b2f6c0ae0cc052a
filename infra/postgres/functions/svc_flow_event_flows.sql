-- The active event flows of the sites an event batch touches (the flows reactor), by the partial
-- index `flows_event`. Definer rights: the reactor reads across sites.
CREATE OR REPLACE FUNCTION svc_flow_event_flows(p_sites text[])
RETURNS TABLE (site_id text, id uuid, trigger_options jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT f.site_id, f.id, f.trigger_options FROM flows f
   WHERE f.site_id = ANY(p_sites) AND f.status = 'active' AND f.trigger = 'event';
END $$;
REVOKE ALL ON FUNCTION svc_flow_event_flows(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_event_flows(text[]) TO svc_app;
