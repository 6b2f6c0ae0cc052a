-- Signed checkpoints of each site's log (docs/verifiable-history.md). They are attestations and not
-- read models. No event describes them and no rebuild refills them. Their one writer is the
-- scheduler task in src/modules/audit/checkpointTask.ts, through the svc_checkpoint_ functions.
-- GET /audit/checkpoints lists them, and GET /audit/verify checks the log against them.
-- The task reads the global log in log order (transaction, position), below the horizon of the
-- transactions that may still commit, the same way svc_read_all does. So an event that commits
-- later can never land before a checkpoint that has already been taken.

-- How far the task has read the global log. This table has exactly one row. Every transaction that
-- writes the tables below locks that row first, so two runs of the task (two instances, or a test
-- calling it) take turns.
CREATE TABLE log_checkpoint_cursor (
  singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  tx_id      xid8        NOT NULL DEFAULT '0',
  position   bigint      NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO log_checkpoint_cursor DEFAULT VALUES;

-- Each site's log as folded so far. It holds the running head hash over every event read, up to
-- (last_tx_id, last_position), and what has happened since the last checkpoint: the pending
-- events, and `since`, which is the last checkpoint's time (or the time the site's first event was
-- read). The next checkpoint is due when pending_events reaches SVC_CHECKPOINT_EVERY, or once
-- SVC_CHECKPOINT_INTERVAL has passed since `since` and there are pending events.
CREATE TABLE log_checkpoint_heads (
  site_id        text        PRIMARY KEY,
  head_hash      text        NOT NULL,
  event_count    bigint      NOT NULL,
  stream_count   bigint      NOT NULL,
  last_tx_id     xid8        NOT NULL,
  last_position  bigint      NOT NULL,
  pending_events integer     NOT NULL,
  last_seq       bigint      NOT NULL DEFAULT 0,
  last_digest    text,
  since          timestamptz NOT NULL
);
CREATE INDEX log_checkpoint_heads_due ON log_checkpoint_heads (since) WHERE pending_events > 0;
SELECT svc_enable_site_rls('log_checkpoint_heads');

-- For each checkpoint, the newest (stream_position, hash) of every stream it touched, that is,
-- every stream with events since the previous checkpoint. The checkpoint's payload signs a digest
-- of these rows (svc_checkpoint_streams_digest). The rows whose seq is past the site's last
-- checkpoint belong to the next checkpoint, which has not been taken yet. Verify reads the newest
-- attested position of each stream through the second index.
CREATE TABLE log_checkpoint_streams (
  site_id         text   NOT NULL,
  seq             bigint NOT NULL,
  stream_id       text   NOT NULL,
  stream_position bigint NOT NULL,
  hash            text   NOT NULL,
  PRIMARY KEY (site_id, seq, stream_id)
);
CREATE INDEX log_checkpoint_streams_by_stream ON log_checkpoint_streams (site_id, stream_id, stream_position);
SELECT svc_enable_site_rls('log_checkpoint_streams');

-- The signed checkpoints. `payload` is the exact canonical JSON that was signed, and `digest` is its
-- SHA-256. The columns repeat the payload's fields so that they can be listed and recomputed.
-- GET /audit/checkpoints reads them newest first through the primary key.
CREATE TABLE log_checkpoints (
  site_id         text        NOT NULL,
  seq             bigint      NOT NULL,
  tx_id           xid8        NOT NULL,
  position        bigint      NOT NULL,
  event_count     bigint      NOT NULL,
  stream_count    bigint      NOT NULL,
  streams_touched integer     NOT NULL,
  streams_digest  text        NOT NULL,
  head_hash       text        NOT NULL,
  previous_digest text,
  digest          text        NOT NULL,
  key_id          text        NOT NULL,
  algorithm       text        NOT NULL,
  payload         text        NOT NULL,
  signature       text        NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, seq)
);
SELECT svc_enable_site_rls('log_checkpoints');
