-- Item history read models: revisions (one row per item event), the temporal item table behind
-- `?asOf=`, named versions (drafts) and pins. All are inline projections of the log.

-- One row per item event. `revision_id` is the event id (globally unique, stable across rebuilds).
CREATE TABLE item_revisions (
  site_id         text NOT NULL,
  revision_id     uuid NOT NULL,
  collection      text NOT NULL,
  item_id         text NOT NULL,
  version         integer NOT NULL,
  event_type      text NOT NULL,
  snapshot        jsonb NOT NULL,
  delta           jsonb NOT NULL,
  cause           jsonb,
  -- the item's draft after the event (X-Svc-Draft writes); a staged revision's content is its draft
  draft           jsonb,
  staged          boolean NOT NULL DEFAULT false,
  actor_kind      text NOT NULL,
  actor_id        text,
  request_id      text,
  position        bigint NOT NULL,
  recorded_at     timestamptz NOT NULL,
  PRIMARY KEY (site_id, revision_id)
);
CREATE UNIQUE INDEX item_revisions_by_item ON item_revisions (site_id, collection, item_id, version);
SELECT svc_enable_site_rls('item_revisions');

-- The temporal read model: one row per state an item was in, valid over [valid_from, valid_to).
-- The row valid at t is `valid_from <= t AND (valid_to IS NULL OR valid_to > t)`; the open row
-- (valid_to NULL) is the current state. Same columns as `items`, so the list query runs over it.
CREATE TABLE item_history (
  site_id       text NOT NULL,
  collection    text NOT NULL,
  id            text NOT NULL,
  status        text,
  sort          integer,
  created_at    timestamptz,
  updated_at    timestamptz,
  user_created  text,
  user_updated  text,
  deleted_at    timestamptz,
  version       integer NOT NULL,
  data          jsonb NOT NULL,
  valid_from    timestamptz NOT NULL,
  valid_to      timestamptz,
  PRIMARY KEY (site_id, collection, id, version)
);
-- "Rows of a collection valid at t" is `tstzrange(valid_from, valid_to) @> t`, served by a GiST index
-- over (site, collection, validity range); btree_gist lets the text keys sit in the same index.
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE INDEX item_history_as_of ON item_history USING gist (site_id, collection, tstzrange(valid_from, valid_to, '[)'));
CREATE INDEX item_history_item_as_of ON item_history (site_id, collection, id, valid_from DESC);
CREATE UNIQUE INDEX item_history_open_row ON item_history (site_id, collection, id) WHERE valid_to IS NULL;
SELECT svc_enable_site_rls('item_history');
-- Under row-level security only leakproof conditions may be index conditions; "range contains
-- time" cannot fail or reveal anything but its result, so mark it (as 0100 does for jsonb `->>`).
-- Only a superuser may; elsewhere the index still serves (site_id, collection).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION range_contains_elem(anyrange, anyelement) LEAKPROOF;
  END IF;
END $$;

-- The items as they stood at the transaction's `svc.as_of` setting: what `?asOf=` reads run over
-- (the content module's list and get queries take a source table; relational filters name it in
-- their subqueries too, so the moment must come from the transaction, not from a parameter).
-- security_invoker: row-level security of item_history applies to the reader.
CREATE VIEW items_as_of WITH (security_invoker = true) AS
  SELECT site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at,
         version, data, valid_from, valid_to
    FROM item_history
   WHERE tstzrange(valid_from, valid_to, '[)') @> NULLIF(current_setting('svc.as_of', true), '')::timestamptz;

-- Named versions (drafts) of an item; the aggregate's stream is <site>/item-version/<collection>/<item>/<key>.
CREATE TABLE item_versions (
  site_id       text NOT NULL,
  collection    text NOT NULL,
  item_id       text NOT NULL,
  key           text NOT NULL,
  name          text NOT NULL,
  data          jsonb NOT NULL,
  -- main's content fields and version when the version was made (or last promoted): a promotion
  -- applies only the fields where `data` differs from `base_data`.
  base_data     jsonb NOT NULL,
  base_version  integer NOT NULL,
  version       integer NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  user_created  text,
  user_updated  text,
  promoted_at   timestamptz,
  PRIMARY KEY (site_id, collection, item_id, key)
);
SELECT svc_enable_site_rls('item_versions');

-- Pins: a field of an item (a relation field, or `*` for the whole item) held at one revision.
CREATE TABLE item_pins (
  site_id           text NOT NULL,
  collection        text NOT NULL,
  item_id           text NOT NULL,
  field             text NOT NULL,
  revision_id       uuid NOT NULL,
  target_collection text NOT NULL,
  target_item_id    text NOT NULL,
  created_at        timestamptz NOT NULL,
  user_created      text,
  PRIMARY KEY (site_id, collection, item_id, field)
);
CREATE INDEX item_pins_revision ON item_pins (site_id, revision_id);
SELECT svc_enable_site_rls('item_pins');
