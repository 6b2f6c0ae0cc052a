-- Agent work (docs/agent-goals.md): intents, goals with their runs' step outcomes, staged actions
-- waiting for their veto window, agent incidents (read models of the log), and the web push
-- reactor's cursor and delivery marks (its own state, no site's rows).
CREATE TABLE agent_intents (
  site_id      text NOT NULL,
  id           uuid NOT NULL,
  title        text NOT NULL,
  description  text,
  role         text,
  status       text NOT NULL CHECK (status IN ('open', 'closed')),
  created_by   text,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  closed_by    text,
  closed_at    timestamptz,
  close_reason text,
  PRIMARY KEY (site_id, id)
);
-- GET /agent/intents (newest first), and with ?status=.
CREATE INDEX agent_intents_list ON agent_intents (site_id, created_at DESC, id DESC);
CREATE INDEX agent_intents_status ON agent_intents (site_id, status, created_at DESC, id DESC);
SELECT svc_enable_site_rls('agent_intents');

CREATE TABLE agent_goals (
  site_id       text NOT NULL,
  id            uuid NOT NULL,
  title         text NOT NULL,
  instructions  text,
  steps         jsonb NOT NULL,
  role          text,
  intent_id     uuid,
  execution     text NOT NULL CHECK (execution IN ('sync', 'async')),
  status        text NOT NULL CHECK (status IN ('planned', 'queued', 'running', 'succeeded', 'awaiting_approval', 'awaiting_veto_window', 'failed', 'halted')),
  requester     jsonb NOT NULL,
  created_by    text NOT NULL,
  run_id        uuid,
  outcomes      jsonb NOT NULL DEFAULT '[]'::jsonb,
  code          text,
  message       text,
  outcome       text CHECK (outcome IN ('succeeded', 'failed', 'abandoned')),
  summary       text,
  settled_by    text,
  settled_at    timestamptz,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- GET /agent/goals: an administrator's (newest first, ?status=, ?intentId=), a creator's own.
CREATE INDEX agent_goals_list ON agent_goals (site_id, created_at DESC, id DESC);
CREATE INDEX agent_goals_status ON agent_goals (site_id, status, created_at DESC, id DESC);
CREATE INDEX agent_goals_intent ON agent_goals (site_id, intent_id, created_at DESC, id DESC) WHERE intent_id IS NOT NULL;
CREATE INDEX agent_goals_creator ON agent_goals (site_id, created_by, created_at DESC, id DESC);
SELECT svc_enable_site_rls('agent_goals');

CREATE TABLE agent_staged_actions (
  site_id               text NOT NULL,
  id                    uuid NOT NULL,
  skill                 text NOT NULL,
  input                 jsonb NOT NULL,
  requester             jsonb NOT NULL,
  agent                 jsonb NOT NULL,
  on_behalf_of          text NOT NULL,
  constitution_version  integer,
  run_after             timestamptz NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'vetoed', 'running', 'ran', 'failed')),
  vetoed_by             text,
  veto_reason           text,
  code                  text,
  message               text,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- GET /agent/staged (newest first), and with ?status=.
CREATE INDEX agent_staged_list ON agent_staged_actions (site_id, created_at DESC, id DESC);
CREATE INDEX agent_staged_status ON agent_staged_actions (site_id, status, created_at DESC, id DESC);
-- Anyone but an administrator sees the actions acting for them.
CREATE INDEX agent_staged_behalf ON agent_staged_actions (site_id, on_behalf_of, created_at DESC, id DESC);
-- The scheduler's due scan (svc_agent_due_staged): only waiting actions are indexed.
CREATE INDEX agent_staged_due ON agent_staged_actions (run_after, site_id, id) WHERE status = 'pending';
SELECT svc_enable_site_rls('agent_staged_actions');

CREATE TABLE agent_incidents (
  site_id      text NOT NULL,
  id           uuid NOT NULL,
  role         text NOT NULL,
  severity     text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  title        text NOT NULL,
  detail       text,
  intent_id    uuid,
  status       text NOT NULL CHECK (status IN ('open', 'resolved')),
  raised_by    text,
  raised_at    timestamptz NOT NULL,
  resolved_by  text,
  resolved_at  timestamptz,
  resolution   text,
  PRIMARY KEY (site_id, id)
);
-- GET /agent/incidents (newest first), with ?status=, ?role=.
CREATE INDEX agent_incidents_list ON agent_incidents (site_id, raised_at DESC, id DESC);
CREATE INDEX agent_incidents_status ON agent_incidents (site_id, status, raised_at DESC, id DESC);
CREATE INDEX agent_incidents_role ON agent_incidents (site_id, role, raised_at DESC, id DESC);
SELECT svc_enable_site_rls('agent_incidents');

-- The web push reactor (src/modules/agents/agentNotifications.ts): the log position it handled through,
-- and each notification event it pushed (by event id: a batch read twice pushes nothing twice).
CREATE TABLE agent_push_cursor (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  tx_id     xid8 NOT NULL,
  position  bigint NOT NULL
);
CREATE TABLE agent_push_deliveries (
  event_id      uuid PRIMARY KEY,
  sent          integer NOT NULL DEFAULT 0,
  failed        integer NOT NULL DEFAULT 0,
  delivered_at  timestamptz NOT NULL DEFAULT now()
);
-- The reactor drops claims older than a day (the cursor passed them): by their age.
CREATE INDEX agent_push_deliveries_age ON agent_push_deliveries (delivered_at);
