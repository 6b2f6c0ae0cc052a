-- Read models of the foundation: roles, users, sessions, and the audit log.

CREATE TABLE roles (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  admin       boolean NOT NULL DEFAULT false,
  parent_id   uuid,
  system_key  text,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX roles_system_key ON roles (site_id, system_key) WHERE system_key IS NOT NULL;
SELECT svc_enable_site_rls('roles');

CREATE TABLE users (
  site_id       text NOT NULL,
  id            uuid NOT NULL,
  email         text NOT NULL,
  password_hash text,
  first_name    text,
  last_name     text,
  avatar        text,
  role_id       uuid,
  status        text NOT NULL,
  token_version integer NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX users_email ON users (site_id, email);
SELECT svc_enable_site_rls('users');

CREATE TABLE sessions (
  site_id         text NOT NULL,
  id              uuid NOT NULL,
  user_id         uuid NOT NULL,
  refresh_token_hash text NOT NULL,
  user_agent      text,
  ip              text,
  impersonator_id uuid,
  created_at      timestamptz NOT NULL,
  last_used_at    timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  revoked_reason  text,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX sessions_user ON sessions (site_id, user_id) WHERE revoked_at IS NULL;
SELECT svc_enable_site_rls('sessions');

CREATE TABLE audit_log (
  site_id         text NOT NULL,
  position        bigint NOT NULL,
  event_id        uuid NOT NULL,
  action          text NOT NULL,
  actor_kind      text NOT NULL,
  actor_id        text,
  impersonator_id text,
  target          text NOT NULL,
  request_id      text,
  occurred_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, position)
);
CREATE INDEX audit_log_time ON audit_log (site_id, occurred_at DESC, position DESC);
CREATE INDEX audit_log_action ON audit_log (site_id, action, position DESC);
CREATE INDEX audit_log_actor ON audit_log (site_id, actor_id, position DESC);
CREATE INDEX audit_log_target ON audit_log (site_id, target, position DESC);
SELECT svc_enable_site_rls('audit_log');
