-- Full-text search over items: an async read model of per-item documents, accent-insensitive.

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

-- Accent folding used on both sides (documents and queries): NFC first so that decomposed input
-- folds like precomposed input, then unaccent's rules (Latin and Vietnamese letters, đ → d), then
-- lower case. Declared IMMUTABLE (unaccent itself is only STABLE because its rules file could
-- change) so that it can sit in stored columns; the rules file ships with PostgreSQL.
CREATE OR REPLACE FUNCTION svc_fold_accents(input text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lower(public.unaccent('public.unaccent'::regdictionary, normalize(input, NFC)))
$$;

-- One document per live item. `texts` is the indexed text per field (`{ field: { text, weight } }`,
-- kept for highlights and so that a removed field can be dropped without reading the log);
-- `title_text` joins the title-like fields (weight A), `body_text` the others (weight B);
-- `document` is their accent-folded tsvector, computed by PostgreSQL.
CREATE TABLE search_documents (
  site_id      text NOT NULL,
  collection   text NOT NULL,
  id           text NOT NULL,
  title_text   text NOT NULL DEFAULT '',
  body_text    text NOT NULL DEFAULT '',
  document     tsvector GENERATED ALWAYS AS (
                 setweight(to_tsvector('simple'::regconfig, svc_fold_accents(title_text)), 'A') ||
                 setweight(to_tsvector('simple'::regconfig, svc_fold_accents(body_text)), 'B')) STORED,
  texts        jsonb NOT NULL,
  version      integer NOT NULL,
  indexed_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, collection, id)
);
CREATE INDEX search_documents_document ON search_documents USING gin (document);
SELECT svc_enable_site_rls('search_documents');

-- What the search projection knows of the schema, from schema events: field types (hashes, ids,
-- dates and numbers are not indexed). Kept by the projection itself so that a rebuild indexes each
-- item with the types its collection had at the time, like the incremental run did.
CREATE TABLE search_fields (
  site_id     text NOT NULL,
  collection  text NOT NULL,
  field       text NOT NULL,
  type        text NOT NULL,
  PRIMARY KEY (site_id, collection, field)
);
SELECT svc_enable_site_rls('search_fields');
