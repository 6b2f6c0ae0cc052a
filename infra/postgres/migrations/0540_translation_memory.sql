-- Translation memory (docs/translation.md): a site's entries (a source text in one language and its
-- translation in another) and its glossary terms. Both are read models of the tm_entry and
-- tm_glossary_term events (projections/translationMemoryProjection.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE tm_entries (
  site_id            text NOT NULL,
  id                 uuid NOT NULL,
  source_lang        text NOT NULL,
  target_lang        text NOT NULL,
  source_text        text NOT NULL,
  -- NFC, trimmed, whitespace runs collapsed, lowercased (src/modules/translation/normalize.ts): the key and what lookups compare.
  normalized_source  text NOT NULL,
  -- The key's digest: a source text may be 10,000 characters, more than a btree row holds. A column,
  -- not an index expression: md5() over a column is not leakproof, so under row-level security
  -- `md5(normalized_source) = $1` could not be an index condition; `source_key = $1` can.
  source_key         text NOT NULL GENERATED ALWAYS AS (md5(normalized_source)) STORED,
  target_text        text NOT NULL,
  quality            smallint NOT NULL CHECK (quality BETWEEN 0 AND 100),
  context            text,
  source             text,
  entry_source       text NOT NULL CHECK (entry_source IN ('manual', 'provider', 'import')),
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- The upsert key, its pre-check and the exact lookup (threshold 100), by the digest (the queries
-- compare the normalized text too).
CREATE UNIQUE INDEX tm_entries_key ON tm_entries (site_id, source_lang, target_lang, source_key);
-- GET /tm, newest first: unfiltered; by source (and target); by target; by entrySource.
CREATE INDEX tm_entries_list ON tm_entries (site_id, created_at DESC, id DESC);
CREATE INDEX tm_entries_by_pair ON tm_entries (site_id, source_lang, target_lang, created_at DESC, id DESC);
CREATE INDEX tm_entries_by_target ON tm_entries (site_id, target_lang, created_at DESC, id DESC);
CREATE INDEX tm_entries_by_entry_source ON tm_entries (site_id, entry_source, created_at DESC, id DESC);
-- Fuzzy lookups (POST /tm/lookup, the translate pipeline's memory stage): one GIN index of the site,
-- the language pair (btree_gin) and the trigrams of the normalized source; `normalized_source % $query`
-- with the pair's equalities is one index scan. No pending list (fastupdate off): a save updates the
-- index at once, and a lookup never reads through unmerged entries (lookups are the hot path).
CREATE INDEX tm_entries_trigram ON tm_entries USING gin (site_id, source_lang, target_lang, normalized_source gin_trgm_ops) WITH (fastupdate = off);
SELECT svc_enable_site_rls('tm_entries');

CREATE TABLE tm_glossary (
  site_id          text NOT NULL,
  id               uuid NOT NULL,
  source_lang      text NOT NULL,
  target_lang      text NOT NULL,
  term             text NOT NULL,
  normalized_term  text NOT NULL,
  translation      text NOT NULL,
  case_sensitive   boolean NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
-- Unique per (site, languages, normalized term): the 409 pre-check, the glossary stage's exact match,
-- the pair's terms given to a provider, and GET /tm/glossary (by pair, then term). Terms are at most
-- 500 characters, within a btree row.
CREATE UNIQUE INDEX tm_glossary_key ON tm_glossary (site_id, source_lang, target_lang, normalized_term);
SELECT svc_enable_site_rls('tm_glossary');

-- Under row-level security only leakproof conditions may be index conditions (as 0100, 0150 and
-- 0481 say). pg_trgm's `%` (similarity_op) only compares two texts' trigram sets with the
-- threshold: it cannot fail on any text nor reveal anything but its result, so mark it. Only a
-- superuser may; elsewhere a lookup reads the language pair's entries of the site (docs/translation.md).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION similarity_op(text, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: translation memory lookups will not use tm_entries_trigram under row-level security';
  END IF;
END $$;
