-- The flow a webhook call names, by id alone (the call has no site): its site, trigger, status and
-- token hash, when its site is live. Definer rights: `flows` has row-level security per site.
CREATE OR REPLACE FUNCTION svc_flow_webhook(p_flow_id uuid)
RETURNS TABLE (site_id text, trigger text, status text, token_hash text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT f.site_id, f.trigger, f.status, f.token_hash
    FROM flows f JOIN sites s ON s.id = f.site_id AND s.deleted_at IS NULL
   WHERE f.id = p_flow_id;
END $$;
REVOKE ALL ON FUNCTION svc_flow_webhook(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_flow_webhook(uuid) TO svc_app;
