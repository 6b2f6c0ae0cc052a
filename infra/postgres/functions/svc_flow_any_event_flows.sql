-- Whether any site has an active event flow: while none has, the flows reactor moves its cursor to the
-- log's head without reading the events (a deployment without event flows pays nothing for them).
CREATE OR REPLACE FUNCTION svc_flow_any_event_flows()
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM flows f WHERE f.status = 'active' AND f.trigger = 'event');
END $$;
REVOKE ALL ON FUNCTION svc_flow_any_event_flows() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_any_event_flows() TO svc_app;
