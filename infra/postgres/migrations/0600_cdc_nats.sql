-- Change-feed subscriptions of kind nats (docs/change-feed.md, "NATS JetStream sink"): the
-- subscription's own subject token, and the sink reactor's checkpoint per subscription
-- (src/modules/cdc/sinkReactor.ts). delivered_seq advances once the broker has acknowledged every
-- entry up to it, broker_position with it (the stream sequence of the last message acknowledged:
-- after a crash the reactor reads back what the stream holds past it); a replay (a new generation)
-- starts delivered_seq again from the subscription's cursor.
ALTER TABLE cdc_subscriptions ADD COLUMN nats_channel text;

CREATE TABLE cdc_sink_state (
  site_id              text NOT NULL,
  subscription_id      uuid NOT NULL,
  generation           integer NOT NULL,
  delivered_seq        bigint NOT NULL,
  broker_position      bigint,
  consecutive_failures integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz,
  dispatch_seen_at     timestamptz,
  last_attempt_at      timestamptz,
  last_success_at      timestamptz,
  last_error           text,
  PRIMARY KEY (site_id, subscription_id)
);
SELECT svc_enable_site_rls('cdc_sink_state');
