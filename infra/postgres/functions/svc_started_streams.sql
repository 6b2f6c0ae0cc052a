-- Which of these streams of the transaction's site have been started.
-- PL/pgSQL so that the plan is kept for the session (see svc_read_stream_head).
CREATE OR REPLACE FUNCTION svc_started_streams(p_streams text[])
RETURNS SETOF text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT s.stream_id FROM (
    SELECT e.stream_id, e.site_id FROM events e WHERE e.stream_id = ANY(p_streams) AND e.stream_position = 1 OFFSET 0
  ) s
   WHERE s.site_id = current_setting('svc.site_id', true);
END $$;
REVOKE ALL ON FUNCTION svc_started_streams(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_started_streams(text[]) TO svc_app;
