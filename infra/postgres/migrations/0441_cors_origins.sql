-- CORS (src/server/cors.ts): a browser's preflight carries no X-Svc-Site, so when its Host names no
-- site the server asks whether any site lists the Origin in its `corsOrigins` setting. The partial
-- GIN index answers `value ? origin` over that one key of every site; the function reads across
-- sites with definer rights (`settings` has row-level security per site) and says only yes or no.
CREATE INDEX settings_cors_origins ON settings USING gin (value) WHERE key = 'corsOrigins';
-- The lookup itself is infra/postgres/functions/svc_cors_origin_listed.sql.
