-- Extensions (docs/extensions.md): a site's installed extension bundles (a read model of the log) and
-- their code, in a table of its own so that lists never read it. Both derive from the install and
-- upgrade events, which carry the signed bundle byte for byte.
CREATE TABLE extensions (
  site_id      text NOT NULL,
  id           uuid NOT NULL,
  name         text NOT NULL,
  version      text NOT NULL,
  description  text,
  entry        text NOT NULL,
  status       text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  official     boolean NOT NULL,
  key_id       text NOT NULL,
  -- The sha256 (hex) of the bundle's bytes: what was signed.
  sha256       text NOT NULL,
  requested    text[] NOT NULL,
  granted      text[] NOT NULL,
  ui           jsonb,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- GET /extensions (oldest first), and one extension per name in a site.
CREATE INDEX extensions_list ON extensions (site_id, created_at, id);
CREATE UNIQUE INDEX extensions_name ON extensions (site_id, name);
SELECT svc_enable_site_rls('extensions');

-- The code of each extension's current bundle (at most 1 MiB: the bundle's bound).
CREATE TABLE extension_code (
  site_id      text NOT NULL,
  extension_id uuid NOT NULL,
  sha256       text NOT NULL,
  code         text NOT NULL,
  PRIMARY KEY (site_id, extension_id)
);
SELECT svc_enable_site_rls('extension_code');
