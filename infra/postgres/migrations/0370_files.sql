-- Files and media (projections/filesProjection.ts): one row per stored object of a site with what it
-- is and how editors file it, and the site's image transform presets. GET /files filters by title,
-- type, tags and folder, each served by an index (src/modules/files/queries.ts).
CREATE TABLE files (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  key         text NOT NULL,
  filename    text NOT NULL,
  title       text,
  type        text NOT NULL,
  size        bigint NOT NULL,
  tags        jsonb NOT NULL DEFAULT '[]',
  folder      text,
  width       integer,
  height      integer,
  source      text NOT NULL,
  uploaded_by text,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX files_key ON files (site_id, key);
CREATE INDEX files_list ON files (site_id, created_at DESC, id);
CREATE INDEX files_by_title ON files (site_id, title text_pattern_ops);
CREATE INDEX files_by_type ON files (site_id, type text_pattern_ops);
CREATE INDEX files_by_folder ON files (site_id, folder, created_at DESC);
CREATE INDEX files_by_tags ON files USING gin (tags jsonb_path_ops);
SELECT svc_enable_site_rls('files');

CREATE TABLE transform_presets (
  site_id    text NOT NULL,
  id         uuid NOT NULL,
  key        text NOT NULL,
  name       text NOT NULL,
  dsl        jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX transform_presets_key ON transform_presets (site_id, key);
SELECT svc_enable_site_rls('transform_presets');
