-- Cloud-sync pipelines (docs/integrations.md): the pipelines (a read model of the log), and the sync
-- reactor's own state per pipeline (its checkpoint in the site's change feed, its retry schedule, a
-- backfill's resume point) and its log of attempts, which no event describes.
CREATE TABLE cloud_sync_pipelines (
  site_id        text NOT NULL,
  id             uuid NOT NULL,
  name           text NOT NULL,
  target         text NOT NULL CHECK (target IN ('firestore', 'realtime_database')),
  status         text NOT NULL CHECK (status IN ('active')),
  project_id     text NOT NULL,
  collections    text[] NOT NULL,
  target_path    text NOT NULL,
  sync_on_create boolean NOT NULL,
  sync_on_update boolean NOT NULL,
  sync_on_delete boolean NOT NULL,
  -- `svc:sealed:<id>`: the credentials live sealed in sensitive_values, never here or in the log.
  credentials    text NOT NULL,
  -- The site's change-feed sequence when the pipeline was made: it pushes what comes after.
  start_seq      bigint NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- GET /cloud-sync/pipelines (oldest first), and one name per site.
CREATE INDEX cloud_sync_pipelines_list ON cloud_sync_pipelines (site_id, created_at, id);
CREATE UNIQUE INDEX cloud_sync_pipelines_name ON cloud_sync_pipelines (site_id, lower(name));
SELECT svc_enable_site_rls('cloud_sync_pipelines');

CREATE TABLE cloud_sync_state (
  site_id              text NOT NULL,
  pipeline_id          uuid NOT NULL,
  synced_seq           bigint NOT NULL,
  attempts             bigint NOT NULL DEFAULT 0,
  consecutive_failures integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz,
  last_sync_at         timestamptz,
  last_sync_item_count integer,
  -- Where the next backfill call resumes (null: from the start).
  backfill_collection  text,
  backfill_after       text,
  PRIMARY KEY (site_id, pipeline_id)
);
SELECT svc_enable_site_rls('cloud_sync_state');

CREATE TABLE cloud_sync_log (
  site_id     text NOT NULL,
  pipeline_id uuid NOT NULL,
  attempt     bigint NOT NULL,
  at          timestamptz NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('sync', 'backfill')),
  status      text NOT NULL CHECK (status IN ('succeeded', 'partial', 'failed')),
  items       integer NOT NULL,
  failed      integer NOT NULL,
  error       text,
  from_seq    bigint,
  to_seq      bigint,
  duration_ms integer NOT NULL,
  PRIMARY KEY (site_id, pipeline_id, attempt)
);
SELECT svc_enable_site_rls('cloud_sync_log');
