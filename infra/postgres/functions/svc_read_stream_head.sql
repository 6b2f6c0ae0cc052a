-- The last event of one stream (item commands load an item from it), the same way as svc_read_stream.
CREATE OR REPLACE FUNCTION svc_read_stream_head(p_stream text)
RETURNS SETOF events
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT s.* FROM (
    SELECT * FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_position DESC LIMIT 1
  ) s
   WHERE s.site_id = current_setting('svc.site_id', true)
$$;
REVOKE ALL ON FUNCTION svc_read_stream_head(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_read_stream_head(text) TO svc_app;
