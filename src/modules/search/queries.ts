// Full-text search over the search read model: accent-insensitive prefix matching of every query
// word, ranked by ts_rank (title-like fields weigh more), never a soft-deleted item, an item of a
// soft-deleted collection, or another site's item.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { IndexedTexts } from '../../../projections/searchProjection.ts';
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import type { Revealer } from '../encryption/reveal.ts';
import { presentItemRow, readOptionsFor, sensitiveReadOf, type StoredItemRow } from '../items/historyItemRows.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { MAX_SEARCH_WORDS, prefixQuery } from '../items/itemSearch.ts';
import { highlight, queryWords } from './highlights.ts';

export interface SearchHit {
  collection: string;
  id: string;
  score: number;
  /** field → snippet with the matches in <mark>. */
  highlights: Record<string, string>;
  item: Record<string, unknown>;
}

export interface SearchRequest {
  q: string;
  collection: string | null;
  limit: number;
  page: number;
  /** Permissions (src/access): items `i` must also meet this condition; absent for administrators. */
  permitted?: SqlFragment | null;
  /** X-Svc-Locale: each hit's `item` shows translatable fields in this language, as reads do. */
  locale?: string | null;
}

/** A page of hits, the total, and the pii/phi fields the hits show (the caller logs them). */
export async function searchItems(
  tx: Queryable,
  schema: SiteSchema,
  request: SearchRequest,
  revealer: Revealer,
): Promise<{ hits: SearchHit[]; total: number; sensitive: (SensitiveRead | null)[] }> {
  const siteId = schema.siteId;
  const words = queryWords(request.q).slice(0, MAX_SEARCH_WORDS);
  if (words.length === 0) return { hits: [], total: 0, sensitive: [] };
  const query = prefixQuery(words);
  const matching = sql`
    FROM search_documents d
    JOIN items i ON i.site_id = d.site_id AND i.collection = d.collection AND i.id = d.id AND i.deleted_at IS NULL
    JOIN collections c ON c.site_id = d.site_id AND c.name = d.collection AND c.deleted_at IS NULL
   WHERE d.site_id = ${siteId}
     AND (${request.collection}::text IS NULL OR d.collection = ${request.collection}::text)
     AND d.document @@ (SELECT query FROM q)${request.permitted ? sql` AND ${request.permitted}` : sql``}`;
  const offset = (request.page - 1) * request.limit;
  const rows = await tx.query<StoredItemRow & { score: number; texts: IndexedTexts }>(sql`
    WITH q AS (SELECT ${query} AS query)
    SELECT i.*, d.texts, ts_rank(d.document, (SELECT query FROM q))::float8 AS score
    ${matching}
    ORDER BY score DESC, d.collection, d.id
    LIMIT ${request.limit} OFFSET ${offset}`);
  const [count] = await tx.query<{ total: number }>(sql`
    WITH q AS (SELECT ${query} AS query)
    SELECT count(*)::int AS total ${matching}`);
  const options = { ...readOptionsFor(schema.defaultLanguage), locale: request.locale ?? null };
  // The schema is this instance's cache: a collection it does not know yet is skipped, not guessed at.
  const known = rows.filter((row) => schema.collections.has(row.collection));
  // Sealed values are opened once per collection of the page, not per hit.
  const opened = new Map<StoredItemRow, Record<string, unknown>>();
  for (const name of new Set(known.map((row) => row.collection))) {
    const ofCollection = known.filter((row) => row.collection === name);
    const contents = await revealer.reveal(tx, schema.collections.get(name), ofCollection.map((row) => ({ itemId: row.id, content: row.data })));
    ofCollection.forEach((row, index) => opened.set(row, contents[index]!));
  }
  const hits: SearchHit[] = [];
  const sensitive: (SensitiveRead | null)[] = [];
  for (const row of known) {
    const collection = schema.collections.get(row.collection)!;
    const item = presentItemRow(collection, { ...row, data: opened.get(row)! }, options);
    const highlights = highlightsOf(row.texts, words, collection.hashFields);
    hits.push({ collection: row.collection, id: row.id, score: row.score, highlights, item });
    sensitive.push(sensitiveReadOf(collection, row.id, [item, highlights]));
  }
  return { total: count?.total ?? 0, hits, sensitive };
}

function highlightsOf(texts: IndexedTexts, words: readonly string[], hashFields: ReadonlySet<string>): Record<string, string> {
  const highlights: Record<string, string> = {};
  const fields = Object.keys(texts).sort((a, b) => (texts[a]!.weight === texts[b]!.weight ? a.localeCompare(b) : texts[a]!.weight === 'A' ? -1 : 1));
  for (const field of fields) {
    if (hashFields.has(field)) continue;
    const snippet = highlight(texts[field]!.text, words);
    if (snippet !== null) highlights[field] = snippet;
  }
  return highlights;
}
