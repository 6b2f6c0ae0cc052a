// The fuzzy lookup of the translation memory (docs/translation.md "Lookup"): the best entry of the
// language pair whose normalized source is at least `threshold` similar to the normalized query.
//
// Similarity is pg_trgm's trigram similarity of the two normalized texts (shared trigrams over all
// distinct trigrams of both, 0–1), ×100 and rounded; 100 is kept for an exact normalized match (two
// texts with the same trigrams in another order show 99). It is cheap, indexable (tm_entries_trigram,
// GIN) and forgiving of the small edits a memory must find: a changed word, a typo, punctuation.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { ENTRY_COLUMNS, entryViewOf, findEntryByKey, type EntryRow } from './queries.ts';
import type { MatchView } from './schemas.ts';

export interface LookupRequest {
  /** The normalized query (normalize.ts). */
  normalizedQuery: string;
  sourceLang: string;
  targetLang: string;
  /** 0–100. */
  threshold: number;
}

/** The similarity a caller sees: exact matches 100, others rounded and at most 99. */
export function shownSimilarity(raw: number, exact: boolean): number {
  return exact ? 100 : Math.min(99, Math.round(raw * 100));
}

/**
 * The index's threshold for a shown threshold: a raw similarity rounds to at least `threshold` from
 * `threshold - 0.5` up; never 0, so a match shares at least one trigram with the query whichever
 * plan runs (a GIN scan only finds rows that share one).
 */
export function indexThreshold(threshold: number): number {
  return Math.max(threshold - 0.5, 0.1) / 100;
}

/** The statement of a fuzzy lookup (exported for the plan checks of the tests and the benchmark). */
export function fuzzyLookupQuery(siteId: string, { normalizedQuery, sourceLang, targetLang }: LookupRequest): SqlFragment {
  return sql`
    SELECT ${ENTRY_COLUMNS}, similarity(e.normalized_source, ${normalizedQuery}::text) AS similarity,
           e.normalized_source = ${normalizedQuery}::text AS exact
      FROM tm_entries e
     WHERE e.site_id = ${siteId} AND e.source_lang = ${sourceLang} AND e.target_lang = ${targetLang}
       AND e.normalized_source % ${normalizedQuery}::text
     ORDER BY exact DESC, similarity DESC, e.quality DESC, e.updated_at DESC, e.id DESC
     LIMIT 1`;
}

/** Sets the index's threshold for the rest of the transaction. */
export const setIndexThreshold = (threshold: number) => sql`SELECT set_config('pg_trgm.similarity_threshold', ${String(indexThreshold(threshold))}, true)`;

/** The best match, or null. Runs in a transaction (`withSite`): the index threshold is set for it alone. */
export async function lookupEntry(tx: Queryable, siteId: string, request: LookupRequest): Promise<MatchView | null> {
  const { normalizedQuery, sourceLang, targetLang, threshold } = request;
  if (threshold >= 100) {
    const exact = await findEntryByKey(tx, siteId, sourceLang, targetLang, normalizedQuery);
    return exact ? { ...exact, similarity: 100 } : null;
  }
  await tx.query(setIndexThreshold(threshold));
  const [row] = await tx.query<EntryRow & { similarity: number; exact: boolean }>(fuzzyLookupQuery(siteId, request));
  if (!row) return null;
  const similarity = shownSimilarity(row.similarity, row.exact);
  return similarity >= threshold ? { ...entryViewOf(row), similarity } : null;
}
