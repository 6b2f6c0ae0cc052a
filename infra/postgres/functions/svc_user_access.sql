-- Authentication checks a token against its user on every request: this lookup takes one round
-- trip instead of a site transaction. It reads only the given site's rows, and only the columns an
-- access decision needs.
CREATE OR REPLACE FUNCTION svc_user_access(p_site text, p_user uuid, p_session uuid)
RETURNS TABLE (id uuid, status text, token_version integer, role_id uuid, admin boolean, session_revoked boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT u.id, u.status, u.token_version, u.role_id, r.admin,
         (p_session IS NOT NULL AND (s.id IS NULL OR s.revoked_at IS NOT NULL)) AS session_revoked
    FROM users u
    LEFT JOIN roles r ON r.site_id = u.site_id AND r.id = u.role_id
    LEFT JOIN sessions s ON s.site_id = u.site_id AND s.id = p_session AND s.user_id = u.id
   WHERE u.site_id = p_site AND u.id = p_user
$$;
REVOKE ALL ON FUNCTION svc_user_access(text, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_user_access(text, uuid, uuid) TO svc_app;
