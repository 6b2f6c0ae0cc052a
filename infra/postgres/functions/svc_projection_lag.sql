-- How far each async projection stands behind the log, for the metrics scrape (infra/metrics):
-- the committed events after its checkpoint (counted up to p_cap, so a projection far behind costs
-- a bounded scan of events_global_order) and the age of the oldest of them, 0 when it is caught up.
CREATE OR REPLACE FUNCTION svc_projection_lag(p_cap integer)
RETURNS TABLE (name text, events_behind bigint, seconds_behind double precision)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT c.name,
         (SELECT count(*) FROM (
            SELECT 1 FROM events e WHERE (e.tx_id, e.position) > (c.tx_id, c.position)
             ORDER BY e.tx_id, e.position LIMIT p_cap) behind),
         coalesce(extract(epoch FROM clock_timestamp() - (
            SELECT e.recorded_at FROM events e WHERE (e.tx_id, e.position) > (c.tx_id, c.position)
             ORDER BY e.tx_id, e.position LIMIT 1)), 0)::float8
    FROM projection_checkpoints c
$$;
REVOKE ALL ON FUNCTION svc_projection_lag(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_projection_lag(integer) TO svc_app;
