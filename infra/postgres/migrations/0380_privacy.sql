-- Account privacy (docs/privacy.md): each user's consents and restriction of processing, read
-- models of the consent and restriction streams (projections/consentsProjection.ts,
-- projections/restrictionsProjection.ts). Their history is in the log and the audit list.

-- One row per user and consent type ever recorded; `granted_at` is the last grant, `withdrawn_at`
-- the withdrawal since then (null while granted).
CREATE TABLE consents (
  site_id      text        NOT NULL,
  user_id      uuid        NOT NULL,
  consent_type text        NOT NULL,
  granted      boolean     NOT NULL,
  granted_at   timestamptz,
  withdrawn_at timestamptz,
  source       text        NOT NULL,
  version      text        NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, user_id, consent_type)
);
SELECT svc_enable_site_rls('consents');

-- One row per user whose processing is restricted; lifting the restriction removes it.
CREATE TABLE processing_restrictions (
  site_id       text        NOT NULL,
  user_id       uuid        NOT NULL,
  reason        text,
  restricted_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, user_id)
);
SELECT svc_enable_site_rls('processing_restrictions');

-- GET /me/automated-decisions: agent-authored revisions are few, so a partial index finds them
-- without weighing on the revisions people write.
CREATE INDEX item_revisions_by_agent ON item_revisions (site_id, collection, item_id) WHERE actor_kind = 'agent';
