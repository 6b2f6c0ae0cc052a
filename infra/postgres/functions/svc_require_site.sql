-- Refuses a call for another site than the transaction's (`svc.site_id`): what row-level security
-- guaranteed, checked by the functions that run as the log's owner.
CREATE OR REPLACE FUNCTION svc_require_site(p_site text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF p_site IS DISTINCT FROM current_setting('svc.site_id', true) THEN
    RAISE EXCEPTION 'this transaction is not set to site %', p_site USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;
