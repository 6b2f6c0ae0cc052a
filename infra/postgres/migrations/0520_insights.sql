-- Insights (docs/insights.md): a site's dashboards and their panels, read models of the dashboard
-- events (projections/dashboardsProjection.ts).
--
-- Lists and lookups and the index each uses:
-- * GET /dashboards (by name, then id) and its total: dashboards_list (site_id, lower(name), id).
-- * A dashboard by id: the primary key (site_id, id).
-- * A dashboard's panels (by position: y, x, then id) and a panel by dashboard and id:
--   dashboard_panels_list (site_id, dashboard_id, pos_y, pos_x, id); a panel by id: the primary key.
-- * Panel data over items reads items through the items read path (field indexes,
--   src/runtime/fieldIndexBuilder.ts); over the audit log, audit_log_time (site_id, occurred_at DESC,
--   position DESC) serves the date range, and audit_log_collection_time below the panels that name a
--   collection (`details->>'collection'`) as a filter.
CREATE TABLE dashboards (
  site_id      text NOT NULL,
  id           uuid NOT NULL,
  name         text NOT NULL,
  icon         text,
  color        text,
  note         text,
  -- Kept by the projection from the panel events: the list shows it without counting.
  panel_count  integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX dashboards_list ON dashboards (site_id, lower(name), id);
SELECT svc_enable_site_rls('dashboards');

CREATE TABLE dashboard_panels (
  site_id       text NOT NULL,
  id            uuid NOT NULL,
  dashboard_id  uuid NOT NULL,
  name          text NOT NULL,
  type          text NOT NULL CHECK (type IN ('metric', 'bar', 'line', 'pie', 'table', 'list')),
  pos_x         integer NOT NULL,
  pos_y         integer NOT NULL,
  width         integer NOT NULL,
  height        integer NOT NULL,
  query         jsonb NOT NULL,
  options       jsonb,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX dashboard_panels_list ON dashboard_panels (site_id, dashboard_id, pos_y, pos_x, id);
SELECT svc_enable_site_rls('dashboard_panels');

-- "Changes of one collection per day": the entries of a collection in a period, newest first.
CREATE INDEX audit_log_collection_time ON audit_log (site_id, (details->>'collection'), occurred_at DESC);
