-- The folded state of several sites' logs (log_checkpoint_heads), read in one statement by the
-- checkpoint task. The task's transaction sets no site while it reads them.
CREATE OR REPLACE FUNCTION svc_checkpoint_heads(p_sites text[]) RETURNS SETOF log_checkpoint_heads
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT * FROM log_checkpoint_heads WHERE site_id = ANY(p_sites)
$$;
REVOKE ALL ON FUNCTION svc_checkpoint_heads(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_checkpoint_heads(text[]) TO svc_app;
