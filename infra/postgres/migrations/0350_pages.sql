-- Read model of the page builder's pages (projection pagesProjection): one row per page. A slug is
-- one page's per site (the unique index backs the check the handler makes under a lock). Slugs sort
-- by their bytes (COLLATE "C"), so the list by slug is the same on any server and served by that index.
CREATE TABLE pages (
  site_id       text NOT NULL,
  id            uuid NOT NULL,
  slug          text COLLATE "C" NOT NULL,
  title         text NOT NULL,
  layout_config jsonb,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX pages_slug ON pages (site_id, slug);
CREATE INDEX pages_list ON pages (site_id, created_at DESC, id);
SELECT svc_enable_site_rls('pages');
