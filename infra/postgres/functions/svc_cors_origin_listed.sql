-- CORS (src/server/cors.ts): whether any site lists an Origin in its `corsOrigins` setting, for a
-- preflight whose Host names no site. Definer rights read across sites (row-level security on
-- `settings`); it answers only yes or no. Served by the partial GIN index of migration 0441.
-- PL/pgSQL keeps the plan for the connection (a SQL function with a SET clause is planned on every call).
CREATE OR REPLACE FUNCTION svc_cors_origin_listed(p_origin text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM settings WHERE key = 'corsOrigins' AND value ? p_origin);
END $$;
REVOKE ALL ON FUNCTION svc_cors_origin_listed(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_cors_origin_listed(text) TO svc_app;
