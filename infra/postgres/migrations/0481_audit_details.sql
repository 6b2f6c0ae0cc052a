-- Each audit entry says what happened (issue #29): `details`, the small object its event type
-- declares in domain/shared/auditEvents.ts (ids, counts, kinds, states; never a personal value).
-- Entries written before this migration have `{}` until the audit read model is rebuilt
-- (`svc projections rebuild audit`, docs/history.md): the declarations live in TypeScript, and a
-- copy of them in SQL would be a second definition to keep in step.
ALTER TABLE audit_log ADD COLUMN details jsonb NOT NULL DEFAULT '{}';

-- Filters on details (`filter[details.recordCount][_gte]=1`) are served by one GIN index of the
-- site and the details (btree_gin puts the site's text beside jsonb's default operator class, which
-- indexes keys as well as key/value pairs): src/modules/audit/queries.ts adds to each details
-- condition the key it needs (`details ? 'recordCount'`) or, for an equality, the containment it
-- implies (`details @> '{"recordCount": 2}'`), and the index answers those. jsonb_ops rather than
-- jsonb_path_ops: the latter serves containment only, not a key's presence, so a range on a key
-- would read the whole site's log.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX audit_log_details ON audit_log USING gin (site_id, details);

-- Under row-level security only leakproof conditions may be index conditions (as 0100 and 0150
-- say). `jsonb ? text` and `jsonb @> jsonb` cannot fail or reveal anything but their result, so
-- mark them. Only a superuser may; elsewhere details filters read the site's entries newest first.
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION jsonb_exists(jsonb, text) LEAKPROOF;
    ALTER FUNCTION jsonb_contains(jsonb, jsonb) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: audit details filters will not use audit_log_details under row-level security';
  END IF;
END $$;
