-- One stream's events after a position (up to a time, for time travel), of the transaction's site
-- only. As the owner, behind an optimization fence, so that the stream index is the plan whatever
-- the statistics (see svc_append). PL/pgSQL so that the plan is kept for the session (see
-- svc_read_stream_head).
CREATE OR REPLACE FUNCTION svc_read_stream(p_stream text, p_after bigint, p_until timestamptz)
RETURNS SETOF events
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT s.* FROM (
    SELECT * FROM events e
     WHERE e.stream_id = p_stream AND e.stream_position > p_after
     ORDER BY e.stream_position
    OFFSET 0
  ) s
   WHERE s.site_id = current_setting('svc.site_id', true)
     AND (p_until IS NULL OR s.recorded_at <= p_until)
   ORDER BY s.stream_position;
END $$;
REVOKE ALL ON FUNCTION svc_read_stream(text, bigint, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_read_stream(text, bigint, timestamptz) TO svc_app;
