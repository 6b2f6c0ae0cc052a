-- Read models of accounts and identity: user verification, soft delete and preferences; teams;
-- API keys and their last use; trusted external issuers and linked identities; subscriber grants.

ALTER TABLE users
  ADD COLUMN email_verified_at timestamptz,
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN preferences jsonb NOT NULL DEFAULT '{}'::jsonb;
-- A deleted user frees its email: only live users are unique per site.
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (site_id, email) WHERE deleted_at IS NULL;
CREATE INDEX users_role ON users (site_id, role_id) WHERE deleted_at IS NULL;

CREATE TABLE teams (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX teams_name ON teams (site_id, lower(name));
SELECT svc_enable_site_rls('teams');

CREATE TABLE team_members (
  site_id  text NOT NULL,
  team_id  uuid NOT NULL,
  user_id  uuid NOT NULL,
  PRIMARY KEY (site_id, team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (site_id, user_id);
SELECT svc_enable_site_rls('team_members');

CREATE TABLE api_keys (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  key_hash    text NOT NULL,
  prefix      text NOT NULL,
  user_id     uuid,
  role_id     uuid,
  created_by  text,
  created_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX api_keys_hash ON api_keys (site_id, key_hash);
SELECT svc_enable_site_rls('api_keys');

-- Operational telemetry, not a projection: touched by the API-key authenticator at most once a
-- minute per key, so a rebuild of api_keys keeps it and the event log is not flooded with uses.
CREATE TABLE api_key_usage (
  site_id      text NOT NULL,
  api_key_id   uuid NOT NULL,
  last_used_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, api_key_id)
);
SELECT svc_enable_site_rls('api_key_usage');

CREATE TABLE trusted_issuers (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  issuer      text NOT NULL,
  enabled     boolean NOT NULL,
  config      jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX trusted_issuers_issuer ON trusted_issuers (site_id, issuer);
SELECT svc_enable_site_rls('trusted_issuers');

CREATE TABLE user_identities (
  site_id     text NOT NULL,
  issuer_id   uuid NOT NULL,
  external_id text NOT NULL,
  user_id     uuid NOT NULL,
  linked_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, issuer_id, external_id)
);
CREATE INDEX user_identities_user ON user_identities (site_id, user_id);
SELECT svc_enable_site_rls('user_identities');

CREATE TABLE subscriber_access (
  site_id     text NOT NULL,
  collection  text NOT NULL,
  granted_by  text,
  granted_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, collection)
);
SELECT svc_enable_site_rls('subscriber_access');
