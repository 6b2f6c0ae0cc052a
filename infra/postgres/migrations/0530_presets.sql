-- View presets and bookmarks (docs/presets.md): each preset as it is now. The scope owner is one
-- key (`u:<userId>`, `r:<roleId>` or `g`), so every read asks for a set of owners with one index.
CREATE TABLE presets (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  collection  text NOT NULL,
  -- null: the scope's default view of the collection; a name: a bookmark (a saved view).
  bookmark    text,
  user_id     uuid,
  role_id     uuid,
  scope_key   text NOT NULL GENERATED ALWAYS AS (
                CASE WHEN user_id IS NOT NULL THEN 'u:' || user_id::text
                     WHEN role_id IS NOT NULL THEN 'r:' || role_id::text
                     ELSE 'g' END) STORED,
  layout      text NOT NULL,
  query       jsonb NOT NULL,
  options     jsonb NOT NULL,
  icon        text,
  color       text,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id),
  CHECK (user_id IS NULL OR role_id IS NULL)
);
-- One default view (bookmark '') and one bookmark of a name (case-insensitive) per owner and
-- collection. It also serves GET /presets/effective and GET /presets/bookmarks (site, collection,
-- the caller's owner keys) and a deleted collection's sweep.
CREATE UNIQUE INDEX presets_slot ON presets (site_id, collection, scope_key, (coalesce(lower(bookmark), '')));
-- An administrator's GET /presets, in creation order (with ?collection=: presets_collection).
CREATE INDEX presets_list ON presets (site_id, created_at, id);
CREATE INDEX presets_collection ON presets (site_id, collection, created_at, id);
-- A member's GET /presets (their own, their role chain's and global owner keys), and the sweep of a
-- deleted user's or role's presets.
CREATE INDEX presets_owner ON presets (site_id, scope_key, created_at, id);
SELECT svc_enable_site_rls('presets');
