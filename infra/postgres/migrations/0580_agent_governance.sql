-- Agent governance (docs/agents.md): the site's agent roles, the autonomy level of each and the
-- requests to raise one, the constitution's draft and every activated version, and the kill
-- switch's freezes. Every table is a read model of the log.
CREATE TABLE agent_roles (
  site_id      text NOT NULL,
  name         text NOT NULL,
  description  text,
  skills       text[] NOT NULL,
  collections  text[] NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  -- Also the list's order (GET /agent/roles, by name) and the gate's look-up.
  PRIMARY KEY (site_id, name)
);
SELECT svc_enable_site_rls('agent_roles');

-- A role without a row is at level 'read'.
CREATE TABLE agent_autonomy (
  site_id       text NOT NULL,
  role          text NOT NULL,
  level         text NOT NULL CHECK (level IN ('read', 'stage', 'act')),
  promotion_id  uuid,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, role)
);
SELECT svc_enable_site_rls('agent_autonomy');

CREATE TABLE agent_promotions (
  site_id        text NOT NULL,
  id             uuid NOT NULL,
  role           text NOT NULL,
  level          text NOT NULL CHECK (level IN ('read', 'stage', 'act')),
  reason         text NOT NULL,
  status         text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_by   text,
  requested_at   timestamptz NOT NULL,
  decided_by     text,
  decided_at     timestamptz,
  decision_reason text,
  PRIMARY KEY (site_id, id)
);
-- GET /agent/autonomy/promotions (newest first), and with ?status=.
CREATE INDEX agent_promotions_list ON agent_promotions (site_id, requested_at DESC, id DESC);
CREATE INDEX agent_promotions_status ON agent_promotions (site_id, status, requested_at DESC, id DESC);
SELECT svc_enable_site_rls('agent_promotions');

-- The one draft of a site's constitution, and whether its current revision compiled (its rules).
CREATE TABLE agent_constitution_drafts (
  site_id       text NOT NULL PRIMARY KEY,
  text          text NOT NULL,
  revision      integer NOT NULL,
  rules         jsonb,
  compiled_revision integer,
  updated_by    text,
  updated_at    timestamptz NOT NULL,
  compiled_at   timestamptz
);
SELECT svc_enable_site_rls('agent_constitution_drafts');

-- Every activated version; the active one is the highest (the gate reads it by this key).
CREATE TABLE agent_constitution_versions (
  site_id       text NOT NULL,
  version       integer NOT NULL,
  text          text NOT NULL,
  rules         jsonb NOT NULL,
  draft_revision integer NOT NULL,
  activated_by  text,
  activated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, version)
);
SELECT svc_enable_site_rls('agent_constitution_versions');

CREATE TABLE agent_freezes (
  site_id      text NOT NULL,
  id           uuid NOT NULL,
  scope        text NOT NULL CHECK (scope IN ('run', 'intent', 'role', 'site')),
  target       text,
  reason       text NOT NULL,
  frozen_by    text,
  frozen_at    timestamptz NOT NULL,
  lifted_by    text,
  lifted_at    timestamptz,
  lift_reason  text,
  PRIMARY KEY (site_id, id)
);
-- The gate's question on every skill call, and GET /agent/kill-switch: the site's active freezes.
CREATE INDEX agent_freezes_active ON agent_freezes (site_id, frozen_at, id) WHERE lifted_at IS NULL;
SELECT svc_enable_site_rls('agent_freezes');
