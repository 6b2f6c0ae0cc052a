-- Sites with a closed window: the scheduler's summary run visits only these.
CREATE OR REPLACE FUNCTION svc_sign_in_failure_sites(p_now timestamptz)
RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT DISTINCT site_id FROM sign_in_failure_windows WHERE window_end <= p_now
$$;
