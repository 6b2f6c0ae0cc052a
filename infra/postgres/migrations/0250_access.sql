-- Read models of access control: role descriptions, policies, their permission rules and
-- attachments (to roles, users, teams), and a per-site version that moves with every change that
-- can change what someone may do (caches of effective permissions check it).

ALTER TABLE roles
  ADD COLUMN description text,
  ADD COLUMN updated_at timestamptz;
CREATE INDEX roles_parent ON roles (site_id, parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE policies (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX policies_name ON policies (site_id, lower(name));
SELECT svc_enable_site_rls('policies');

-- collection NULL: a capability (media:create, cdc:subscribe, ...). fields {'*'}: every field.
CREATE TABLE policy_permissions (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  policy_id   uuid NOT NULL,
  collection  text,
  action      text NOT NULL,
  fields      text[] NOT NULL,
  conditions  jsonb,
  position    bigint NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX policy_permissions_policy ON policy_permissions (site_id, policy_id, position);
SELECT svc_enable_site_rls('policy_permissions');

CREATE TABLE policy_attachments (
  site_id     text NOT NULL,
  policy_id   uuid NOT NULL,
  target_kind text NOT NULL CHECK (target_kind IN ('role', 'user', 'team')),
  target_id   uuid NOT NULL,
  attached_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, policy_id, target_kind, target_id)
);
CREATE INDEX policy_attachments_target ON policy_attachments (site_id, target_kind, target_id);
SELECT svc_enable_site_rls('policy_attachments');

-- Log position of the site's last access-relevant event.
CREATE TABLE access_versions (
  site_id  text NOT NULL,
  version  bigint NOT NULL,
  PRIMARY KEY (site_id)
);
SELECT svc_enable_site_rls('access_versions');
