-- Flows (docs/flows.md): each flow as it is now, its runs and their steps, and the cursor of the
-- reactor that starts event flows.
CREATE TABLE flows (
  site_id         text NOT NULL,
  id              uuid NOT NULL,
  name            text NOT NULL,
  description     text,
  status          text NOT NULL CHECK (status IN ('draft', 'active')),
  trigger         text NOT NULL CHECK (trigger IN ('event', 'schedule', 'webhook', 'manual')),
  trigger_options jsonb NOT NULL,
  graph           jsonb NOT NULL,
  act_as          jsonb,
  owner_id        uuid,
  token_hash      text,
  next_run_at     timestamptz,
  version         integer NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX flows_list ON flows (site_id, created_at DESC, id DESC);
CREATE INDEX flows_status_trigger ON flows (site_id, status, trigger, created_at DESC, id DESC);
-- The scheduler's sweep of due schedule flows across sites, and the reactor's event flows of a site.
CREATE INDEX flows_due ON flows (next_run_at, site_id, id) WHERE status = 'active' AND trigger = 'schedule';
CREATE INDEX flows_event ON flows (site_id) WHERE status = 'active' AND trigger = 'event';
-- A webhook call names only the flow's id: its site is looked up by it.
CREATE INDEX flows_by_id ON flows (id);
SELECT svc_enable_site_rls('flows');

CREATE TABLE flow_runs (
  site_id       text NOT NULL,
  id            uuid NOT NULL,
  flow_id       uuid NOT NULL,
  status        text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  trigger       text NOT NULL,
  input         jsonb,
  depth         integer NOT NULL,
  dry_run       boolean NOT NULL,
  replay_of     uuid,
  error         text,
  started_at    timestamptz NOT NULL,
  executing_at  timestamptz,
  finished_at   timestamptz,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX flow_runs_list ON flow_runs (site_id, flow_id, started_at DESC, id DESC);
CREATE INDEX flow_runs_status ON flow_runs (site_id, flow_id, status, started_at DESC, id DESC);
-- Runs whose job may be lost (queued long ago), and runs past retention, across sites.
CREATE INDEX flow_runs_queued ON flow_runs (started_at) WHERE status = 'queued';
CREATE INDEX flow_runs_finished ON flow_runs (finished_at) WHERE finished_at IS NOT NULL;
-- The loop guard finds the run that caused a write by its id alone.
CREATE INDEX flow_runs_by_id ON flow_runs (id);
SELECT svc_enable_site_rls('flow_runs');

CREATE TABLE flow_run_steps (
  site_id      text NOT NULL,
  run_id       uuid NOT NULL,
  seq          integer NOT NULL,
  node_id      text NOT NULL,
  operation    text NOT NULL,
  status       text NOT NULL,
  output       jsonb,
  error        text,
  duration_ms  double precision NOT NULL,
  attempts     integer NOT NULL,
  started_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, run_id, seq)
);
SELECT svc_enable_site_rls('flow_run_steps');

-- The event-flow reactor's place in the log (one row): advanced after the runs it queued commit.
CREATE TABLE flow_trigger_cursor (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  tx_id     xid8 NOT NULL,
  position  bigint NOT NULL
);
