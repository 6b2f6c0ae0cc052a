-- Field indexes are built outside the schema transaction. The schema projection records here the
-- expression indexes each site's schema wants (projections/schemaProjection.ts), and the field
-- index builder (src/modules/schema/fieldIndexBuilder.ts) makes them with CREATE/DROP INDEX
-- CONCURRENTLY on an owner connection, so that a build never blocks writes to `items`.
--
-- state: building (wanted, not yet valid), ready (valid), failed (the last build failed: `error`),
-- dropping (no longer wanted; the builder drops the index, then the row).
-- The index name, its expression and its predicate derive from site_id, collection, field and kind
-- only (svc_item_field_index_name, svc_item_field_expression): row-level security makes the
-- application role write rows of its own site only, so a site can only cause indexes for itself.
CREATE TABLE item_field_indexes (
  site_id     text NOT NULL,
  collection  text NOT NULL,
  field       text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('text', 'numeric', 'boolean', 'json')),
  index_name  text NOT NULL GENERATED ALWAYS AS (svc_item_field_index_name(site_id, collection, field, kind)) STORED,
  state       text NOT NULL CHECK (state IN ('building', 'ready', 'failed', 'dropping')),
  error       text,
  PRIMARY KEY (site_id, collection, field, kind)
);
-- Two rows never name one index (a hash collision fails the schema command instead).
CREATE UNIQUE INDEX item_field_indexes_name ON item_field_indexes (index_name);
-- The builder's queue: rows with work to do.
CREATE INDEX item_field_indexes_pending ON item_field_indexes (site_id, collection, field) WHERE state <> 'ready';
SELECT svc_enable_site_rls('item_field_indexes');

-- The statement that builds one field index: the same name, expression and predicate as before,
-- CONCURRENTLY (outside a transaction). Only the owner runs it.
CREATE OR REPLACE FUNCTION svc_item_field_index_statement(p_site text, p_collection text, p_field text, p_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  expression text := svc_item_field_expression(p_field, p_kind);
BEGIN
  IF expression IS NULL THEN
    RAISE EXCEPTION 'unknown field kind %', p_kind;
  END IF;
  RETURN format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON public.items (%s) WHERE site_id = %L AND collection = %L AND deleted_at IS NULL',
                svc_item_field_index_name(p_site, p_collection, p_field, p_kind), expression, p_site, p_collection);
END $$;
REVOKE ALL ON FUNCTION svc_item_field_index_statement(text, text, text, text) FROM PUBLIC;

-- The application role no longer runs DDL on `items`.
DROP FUNCTION IF EXISTS svc_ensure_item_field_index(text, text, text, text);
DROP FUNCTION IF EXISTS svc_drop_item_field_index(text, text, text, text);

-- Indexes built by the schema transaction before this migration: one row each, as a rebuild of the
-- schema projection would record them (ready when valid; an invalid one is rebuilt).
INSERT INTO item_field_indexes (site_id, collection, field, kind, state)
SELECT f.site_id, f.collection, f.field, k.kind, CASE WHEN i.indisvalid THEN 'ready' ELSE 'building' END
  FROM collection_fields f
  JOIN collections c ON c.site_id = f.site_id AND c.name = f.collection AND c.deleted_at IS NULL
 CROSS JOIN unnest(ARRAY['text', 'numeric', 'boolean', 'json']) AS k(kind)
  JOIN pg_index i ON i.indexrelid = to_regclass('public.' || quote_ident(svc_item_field_index_name(f.site_id, f.collection, f.field, k.kind)));
