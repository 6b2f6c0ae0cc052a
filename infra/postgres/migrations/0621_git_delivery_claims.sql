-- A webhook delivery being handled (docs/integrations.md "Webhook receiver"): the first of concurrent
-- copies of one delivery claims it before any effect, the others answer as duplicates; the claim goes
-- once the delivery is recorded (git_webhook_deliveries) or has failed. A claim older than ten minutes
-- (its instance died) may be taken over. Scratch state, never history.
CREATE TABLE git_delivery_claims (
  site_id        text NOT NULL,
  integration_id uuid NOT NULL,
  delivery_id    text NOT NULL,
  claimed_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, integration_id, delivery_id)
);
SELECT svc_enable_site_rls('git_delivery_claims');
