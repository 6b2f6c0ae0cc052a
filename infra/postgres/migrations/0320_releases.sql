-- Read model of releases: one row per release, one per item it holds. The list filters by status;
-- the scheduler (not built yet) will look for due releases across sites by (status, publish_at).
CREATE TABLE releases (
  site_id            text NOT NULL,
  id                 uuid NOT NULL,
  name               text NOT NULL,
  status             text NOT NULL,
  atomicity_mode     text NOT NULL,
  publish_at         timestamptz,
  maintenance_window jsonb,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX releases_list ON releases (site_id, created_at DESC, id);
CREATE INDEX releases_list_by_status ON releases (site_id, status, created_at DESC, id);
CREATE INDEX releases_due ON releases (status, publish_at);
SELECT svc_enable_site_rls('releases');

CREATE TABLE release_items (
  site_id       text NOT NULL,
  release_id    uuid NOT NULL,
  collection    text NOT NULL,
  item_id       text NOT NULL,
  target_status text NOT NULL,
  revision_id   uuid,
  added_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, release_id, collection, item_id)
);
SELECT svc_enable_site_rls('release_items');
