-- The change feed (an async read model of the log), its subscriptions (inline read model of the
-- subscription streams), and the webhook reactor's own progress and delivery attempts.

-- One row per feed entry. `seq` numbers a site's entries in the projection's apply order, which is
-- the log order (tx_id, position): dense, increasing, never reused (kept in cdc_feed_sites).
-- `envelope` is the entry exactly as readers and webhook receivers get it (JSON text, rendered once
-- when projected), so a page is served without rebuilding JSON; the other columns are for filters.
CREATE TABLE cdc_feed (
  site_id      text NOT NULL,
  seq          bigint NOT NULL,
  position     bigint NOT NULL,
  event_id     uuid NOT NULL,
  type         text NOT NULL,
  collection   text,
  item_id      text,
  occurred_at  timestamptz NOT NULL,
  envelope     text NOT NULL,
  PRIMARY KEY (site_id, seq)
);
CREATE INDEX cdc_feed_collection ON cdc_feed (site_id, collection, seq);
CREATE INDEX cdc_feed_time ON cdc_feed (site_id, occurred_at, seq);
SELECT svc_enable_site_rls('cdc_feed');

-- Per site: the last sequence handed out, and the last one removed by retention pruning (a cursor
-- below it has lost events and is expired).
CREATE TABLE cdc_feed_sites (
  site_id        text PRIMARY KEY,
  last_seq       bigint NOT NULL DEFAULT 0,
  pruned_through bigint NOT NULL DEFAULT 0
);
SELECT svc_enable_site_rls('cdc_feed_sites');

-- Subscriptions (stream <site>/cdc-subscription/<id>). cursor_seq is the acknowledged position of a
-- pull subscription and the rewind target of a webhook one (applied by the reactor when
-- replay_generation moves).
CREATE TABLE cdc_subscriptions (
  site_id               text NOT NULL,
  id                    uuid NOT NULL,
  name                  text NOT NULL,
  kind                  text NOT NULL,
  state                 text NOT NULL,
  state_reason          text,
  url                   text,
  secret_ciphertext     text,
  collections           text[],
  operations            text[],
  cursor_seq            bigint NOT NULL,
  replay_generation     integer NOT NULL DEFAULT 0,
  dispatch_requested_at timestamptz,
  version               integer NOT NULL,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX cdc_subscriptions_name ON cdc_subscriptions (site_id, name);
SELECT svc_enable_site_rls('cdc_subscriptions');

-- The webhook reactor's checkpoint per subscription: delivered_seq advances in the same
-- transaction that records the successful attempt.
CREATE TABLE cdc_webhook_state (
  site_id              text NOT NULL,
  subscription_id      uuid NOT NULL,
  generation           integer NOT NULL,
  delivered_seq        bigint NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz,
  dispatch_seen_at     timestamptz,
  last_attempt_at      timestamptz,
  last_success_at      timestamptz,
  last_error           text,
  PRIMARY KEY (site_id, subscription_id)
);
SELECT svc_enable_site_rls('cdc_webhook_state');

-- Every delivery attempt. delivery_id is derived from (subscription, seq, replay generation), so a
-- retried delivery keeps its id and receivers can de-duplicate.
CREATE TABLE cdc_deliveries (
  site_id         text NOT NULL,
  id              bigint GENERATED ALWAYS AS IDENTITY,
  subscription_id uuid NOT NULL,
  delivery_id     text NOT NULL,
  seq             bigint NOT NULL,
  event_id        uuid NOT NULL,
  event_type      text NOT NULL,
  attempt         integer NOT NULL,
  outcome         text NOT NULL,
  status_code     integer,
  error           text,
  duration_ms     integer NOT NULL,
  attempted_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX cdc_deliveries_subscription ON cdc_deliveries (site_id, subscription_id, id DESC);
CREATE INDEX cdc_deliveries_time ON cdc_deliveries (site_id, attempted_at);
SELECT svc_enable_site_rls('cdc_deliveries');

-- Active webhook subscriptions with feed entries past their cursor (of one site, or of all), and
-- when they are due. Definer rights: the reactor looks across sites like the log reader does.
CREATE OR REPLACE FUNCTION svc_cdc_due_webhooks(p_site text)
RETURNS TABLE (site_id text, subscription_id uuid, due_at timestamptz, dispatch boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT site_id, id, CASE WHEN dispatch THEN now() ELSE coalesce(next_attempt_at, now()) END, dispatch
    FROM (
      SELECT s.site_id, s.id, w.next_attempt_at,
             coalesce(s.dispatch_requested_at > coalesce(w.dispatch_seen_at, '-infinity'::timestamptz), false) AS dispatch,
             CASE WHEN w.generation IS NOT DISTINCT FROM s.replay_generation THEN w.delivered_seq ELSE s.cursor_seq END AS cursor_seq,
             coalesce(f.last_seq, 0) AS last_seq
        FROM cdc_subscriptions s
        LEFT JOIN cdc_feed_sites f ON f.site_id = s.site_id
        LEFT JOIN cdc_webhook_state w ON w.site_id = s.site_id AND w.subscription_id = s.id
       WHERE s.kind = 'webhook' AND s.state = 'active' AND (p_site IS NULL OR s.site_id = p_site)
    ) candidates
   WHERE dispatch OR cursor_seq < last_seq
$$;

-- True when the log holds committed events after the cursor that svc_read_all cannot return yet
-- (an older transaction anywhere on the server is still open). The projection daemon then looks
-- again within milliseconds instead of waiting for its polling interval.
CREATE OR REPLACE FUNCTION svc_log_has_after(p_after_tx xid8, p_after_position bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT EXISTS (SELECT 1 FROM events WHERE (tx_id, position) > (p_after_tx, p_after_position))
$$;

-- Committed events after a cursor in log order, without svc_read_all's horizon. Only for readers
-- that may see an older transaction's events later than newer ones and catch them up through
-- svc_read_all (the realtime tailer): it must not wait for every open transaction of the server.
CREATE OR REPLACE FUNCTION svc_read_committed_after(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS SETOF events LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT * FROM events
   WHERE (tx_id, position) > (p_after_tx, p_after_position)
   ORDER BY tx_id, position
   LIMIT p_limit
$$;

-- Realtime tickets: one minute, single use, stored as a hash only.
CREATE TABLE realtime_tickets (
  site_id     text NOT NULL,
  ticket_hash text NOT NULL,
  kind        text NOT NULL,
  user_id     text,
  collections jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  PRIMARY KEY (site_id, ticket_hash)
);
CREATE INDEX realtime_tickets_expiry ON realtime_tickets (site_id, expires_at);
SELECT svc_enable_site_rls('realtime_tickets');

-- Web push subscriptions (stream <site>/push-subscription/<id>, id = sha256 of the endpoint).
CREATE TABLE push_subscriptions (
  site_id    text NOT NULL,
  id         text NOT NULL,
  user_id    text NOT NULL,
  endpoint   text NOT NULL,
  p256dh     text NOT NULL,
  auth       text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (site_id, user_id);
SELECT svc_enable_site_rls('push_subscriptions');

-- The in-process job queue's state (used when REDIS_URL is not set). Instance-level: a job's
-- payload names its site. One row per (queue, key): a key waiting is not queued twice; a key
-- enqueued while running is marked to run once more.
CREATE TABLE job_queue (
  queue        text NOT NULL,
  key          text NOT NULL,
  payload      jsonb NOT NULL,
  run_at       timestamptz NOT NULL,
  locked_by    text,
  locked_until timestamptz,
  rerun        boolean NOT NULL DEFAULT false,
  attempts     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue, key)
);
CREATE INDEX job_queue_due ON job_queue (queue, run_at);

-- Sites with something past retention (feed entries, delivery attempts, expired realtime tickets):
-- the scheduler's retention run visits only these.
CREATE OR REPLACE FUNCTION svc_cdc_retention_sites(p_cutoff timestamptz, p_ticket_cutoff timestamptz)
RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT f.site_id FROM cdc_feed_sites f
   WHERE EXISTS (SELECT 1 FROM cdc_feed e WHERE e.site_id = f.site_id AND e.occurred_at < p_cutoff)
  UNION
  SELECT DISTINCT site_id FROM cdc_deliveries WHERE attempted_at < p_cutoff
  UNION
  SELECT DISTINCT site_id FROM realtime_tickets WHERE expires_at < p_ticket_cutoff
$$;
