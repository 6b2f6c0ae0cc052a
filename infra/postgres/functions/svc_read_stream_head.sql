-- The last event of one stream (item commands load an item from it), the same way as svc_read_stream.
-- PL/pgSQL, not SQL: a SQL function with SECURITY DEFINER and SET is never inlined and plans its body
-- on every call (0.2 ms, three times the lookup itself); PL/pgSQL keeps the plan for the session.
CREATE OR REPLACE FUNCTION svc_read_stream_head(p_stream text)
RETURNS SETOF events
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT s.* FROM (
    SELECT * FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_position DESC LIMIT 1
  ) s
   WHERE s.site_id = current_setting('svc.site_id', true);
END $$;
REVOKE ALL ON FUNCTION svc_read_stream_head(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_read_stream_head(text) TO svc_app;
