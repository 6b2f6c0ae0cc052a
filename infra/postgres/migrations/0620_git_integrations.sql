-- Git integrations (docs/integrations.md "Git integration"). Read models of the log: the integrations,
-- the webhook deliveries they accepted (a replayed delivery id is found here) and the intents each
-- gitops sync keeps in step with the repository's intents file. The area's own caches, which no
-- event describes: the provider's pull requests, fetched CI logs, and the single-use OAuth states.
CREATE TABLE git_integrations (
  site_id         text NOT NULL,
  id              uuid NOT NULL,
  provider        text NOT NULL CHECK (provider IN ('github', 'gitlab')),
  repo_full_name  text NOT NULL,
  display_name    text NOT NULL,
  auth_method     text NOT NULL CHECK (auth_method IN ('app', 'pat')),
  -- `svc:sealed:<id>`: the token and the webhook secret live sealed in sensitive_values, never here or in the log.
  token           text,
  installation_id text,
  webhook_secret  text NOT NULL,
  status          text NOT NULL CHECK (status IN ('active', 'paused')),
  sync_config     jsonb NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX git_integrations_list ON git_integrations (site_id, created_at, id);
CREATE UNIQUE INDEX git_integrations_repo ON git_integrations (site_id, provider, lower(repo_full_name));
SELECT svc_enable_site_rls('git_integrations');

CREATE TABLE git_webhook_deliveries (
  site_id        text NOT NULL,
  integration_id uuid NOT NULL,
  delivery_id    text NOT NULL,
  event          text NOT NULL,
  action         text,
  pull_request   integer,
  outcome        text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, integration_id, delivery_id)
);
SELECT svc_enable_site_rls('git_webhook_deliveries');

CREATE TABLE git_gitops_intents (
  site_id        text NOT NULL,
  integration_id uuid NOT NULL,
  key            text NOT NULL,
  intent_id      uuid NOT NULL,
  PRIMARY KEY (site_id, integration_id, key)
);
SELECT svc_enable_site_rls('git_gitops_intents');

CREATE TABLE git_pull_requests (
  site_id        text NOT NULL,
  integration_id uuid NOT NULL,
  number         integer NOT NULL,
  title          text NOT NULL,
  state          text NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
  draft          boolean NOT NULL,
  author         text,
  head_sha       text NOT NULL,
  head_ref       text NOT NULL,
  base_ref       text NOT NULL,
  url            text NOT NULL,
  opened_at      timestamptz NOT NULL,
  changed_at     timestamptz NOT NULL,
  fetched_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, integration_id, number)
);
-- GET …/pull-requests: the most recently changed first.
CREATE INDEX git_pull_requests_list ON git_pull_requests (site_id, integration_id, changed_at DESC, number DESC);
SELECT svc_enable_site_rls('git_pull_requests');

CREATE TABLE git_ci_logs (
  site_id        text NOT NULL,
  integration_id uuid NOT NULL,
  run_id         text NOT NULL,
  log            text NOT NULL,
  truncated      boolean NOT NULL,
  -- Every job of the run had finished: the log will not change and is served from here.
  complete       boolean NOT NULL,
  fetched_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, integration_id, run_id)
);
SELECT svc_enable_site_rls('git_ci_logs');

CREATE TABLE git_oauth_states (
  site_id        text NOT NULL,
  -- SHA-256 of the state's secret part: the state itself is only in the authorize URL.
  state_hash     text NOT NULL,
  integration_id uuid NOT NULL,
  provider       text NOT NULL,
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, state_hash)
);
CREATE INDEX git_oauth_states_expiry ON git_oauth_states (site_id, expires_at);
SELECT svc_enable_site_rls('git_oauth_states');
