-- Content read models: the schema of each site (collections, fields, relations) and its items.
-- All are inline projections of the log (projections/schemaProjection.ts, projections/itemsProjection.ts).

CREATE TABLE collections (
  site_id     text NOT NULL,
  name        text NOT NULL,
  meta        jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  -- A deleted collection keeps its row (its name stays reserved); its items disappear from reads.
  deleted_at  timestamptz,
  PRIMARY KEY (site_id, name)
);
SELECT svc_enable_site_rls('collections');

-- `definition`: the whole field as declared (type, interface, display, options, required, sort,
-- sensitivity, indexed, note).
CREATE TABLE collection_fields (
  site_id     text NOT NULL,
  collection  text NOT NULL,
  field       text NOT NULL,
  definition  jsonb NOT NULL,
  -- Declaration order: the log position of the field's field.added event.
  position    bigint NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, collection, field)
);
SELECT svc_enable_site_rls('collection_fields');

CREATE TABLE collection_relations (
  site_id     text NOT NULL,
  id          text NOT NULL,
  definition  jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
SELECT svc_enable_site_rls('collection_relations');

-- The position of the last schema event of each site: schema caches compare it to revalidate.
CREATE TABLE schema_versions (
  site_id     text PRIMARY KEY,
  version     bigint NOT NULL
);
SELECT svc_enable_site_rls('schema_versions');

-- The item read model (see the content contract). Content fields live in `data`; a content field
-- whose name equals a structural column is never stored there.
CREATE TABLE items (
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
  data          jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (site_id, collection, id)
);
CREATE INDEX items_created ON items (site_id, collection, created_at) WHERE deleted_at IS NULL;
CREATE INDEX items_updated ON items (site_id, collection, updated_at) WHERE deleted_at IS NULL;
CREATE INDEX items_sort ON items (site_id, collection, sort) WHERE deleted_at IS NULL;
CREATE INDEX items_status ON items (site_id, collection, status) WHERE deleted_at IS NULL;
SELECT svc_enable_site_rls('items');

-- The draft of an item written with `X-Svc-Draft: true`: its whole content, kept beside the item.
CREATE TABLE item_drafts (
  site_id       text NOT NULL,
  collection    text NOT NULL,
  id            text NOT NULL,
  data          jsonb NOT NULL,
  status        text,
  sort          integer,
  updated_at    timestamptz NOT NULL,
  user_updated  text,
  PRIMARY KEY (site_id, collection, id)
);
SELECT svc_enable_site_rls('item_drafts');

-- Reads of pii/phi fields (projected from `item.sensitive_read` events): who read which field of
-- which item, when. Never the values.
CREATE TABLE field_access_log (
  site_id      text NOT NULL,
  position     bigint NOT NULL,
  ordinal      integer NOT NULL,
  user_id      text,
  actor_kind   text NOT NULL,
  collection   text NOT NULL,
  item_id      text NOT NULL,
  field        text NOT NULL,
  sensitivity  text NOT NULL,
  request_id   text,
  accessed_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, position, ordinal)
);
CREATE INDEX field_access_log_time ON field_access_log (site_id, accessed_at DESC);
CREATE INDEX field_access_log_item ON field_access_log (site_id, collection, item_id, accessed_at DESC);
SELECT svc_enable_site_rls('field_access_log');

-- Indexes on content fields (`indexed: true`, and every stored relation field): one partial
-- expression index per (site, collection, field), whose expression is exactly what the query
-- compiler writes for that field (src/query/fieldExpressions.ts), so filters and sorts use it.
-- Created by the schema projection in its transaction, through these owner functions: the
-- application role does not own `items`. The name is a hash of site, collection, field and kind.
CREATE OR REPLACE FUNCTION svc_item_field_expression(p_field text, p_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_field !~ '^[A-Za-z0-9_]+$' THEN
    RAISE EXCEPTION 'invalid field name %', p_field;
  END IF;
  RETURN CASE p_kind
    WHEN 'text' THEN format('(data ->> %L)', p_field)
    WHEN 'numeric' THEN format('((data ->> %L)::numeric)', p_field)
    WHEN 'boolean' THEN format('((data ->> %L)::boolean)', p_field)
    WHEN 'json' THEN format('(data -> %L)', p_field)
  END;
END $$;

CREATE OR REPLACE FUNCTION svc_item_field_index_name(p_site text, p_collection text, p_field text, p_kind text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'items_f_' || substr(md5(p_site || '/' || p_collection || '/' || p_field || '/' || p_kind), 1, 24)
$$;

CREATE OR REPLACE FUNCTION svc_ensure_item_field_index(p_site text, p_collection text, p_field text, p_kind text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  expression text := svc_item_field_expression(p_field, p_kind);
BEGIN
  IF p_site IS DISTINCT FROM current_setting('svc.site_id', true) THEN
    RAISE EXCEPTION 'an index may only be made for the transaction''s site';
  END IF;
  IF expression IS NULL THEN
    RAISE EXCEPTION 'unknown field kind %', p_kind;
  END IF;
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON items (%s) WHERE site_id = %L AND collection = %L AND deleted_at IS NULL',
                 svc_item_field_index_name(p_site, p_collection, p_field, p_kind), expression, p_site, p_collection);
END $$;

-- Drops the field's indexes of every kind but `p_keep_kind` (NULL: all of them).
CREATE OR REPLACE FUNCTION svc_drop_item_field_index(p_site text, p_collection text, p_field text, p_keep_kind text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  kind text;
BEGIN
  IF p_site IS DISTINCT FROM current_setting('svc.site_id', true) THEN
    RAISE EXCEPTION 'an index may only be dropped for the transaction''s site';
  END IF;
  FOREACH kind IN ARRAY ARRAY['text', 'numeric', 'boolean', 'json'] LOOP
    IF kind IS DISTINCT FROM p_keep_kind THEN
      EXECUTE format('DROP INDEX IF EXISTS %I', svc_item_field_index_name(p_site, p_collection, p_field, kind));
    END IF;
  END LOOP;
END $$;

REVOKE ALL ON FUNCTION svc_ensure_item_field_index(text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION svc_drop_item_field_index(text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_ensure_item_field_index(text, text, text, text) TO svc_app;
GRANT EXECUTE ON FUNCTION svc_drop_item_field_index(text, text, text, text) TO svc_app;

-- Row-level security makes PostgreSQL evaluate a query's own conditions after the policy, unless
-- they are leakproof; `data ->> 'field'` (jsonb_object_field_text) is not marked so, which keeps
-- expression indexes from serving equality filters on content fields. It cannot fail or reveal
-- anything but its result, so mark it (and `->`) leakproof. Only a superuser may; elsewhere the
-- indexes still serve sorts, and filters fall back to scanning the site's collection.
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION jsonb_object_field_text(jsonb, text) LEAKPROOF;
    ALTER FUNCTION jsonb_object_field(jsonb, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: content-field equality filters will not use expression indexes under row-level security';
  END IF;
END $$;
