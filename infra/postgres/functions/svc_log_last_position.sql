-- The log's last position (every instance's appends), for the metrics scrape: its rate is the
-- event append rate. One backward probe of the primary key.
CREATE OR REPLACE FUNCTION svc_log_last_position() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT coalesce(max(position), 0) FROM events
$$;
REVOKE ALL ON FUNCTION svc_log_last_position() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_log_last_position() TO svc_app;
