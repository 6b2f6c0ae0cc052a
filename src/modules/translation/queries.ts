// Reads of the translation memory read models (tm_entries, tm_glossary), shaped for the answers.
// Each list and lookup names the index that serves it (infra/postgres/migrations/0540_translation_memory.sql).
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { EntryListQuery, EntryView, GlossaryListQuery, TermView } from './schemas.ts';

export interface EntryRow {
  id: string;
  source_lang: string;
  target_lang: string;
  source_text: string;
  target_text: string;
  quality: number;
  context: string | null;
  source: string | null;
  entry_source: EntryView['entrySource'];
  created_at: Date;
  updated_at: Date;
}

export const ENTRY_COLUMNS = sql`e.id, e.source_lang, e.target_lang, e.source_text, e.target_text, e.quality, e.context, e.source, e.entry_source, e.created_at, e.updated_at`;

export const entryViewOf = (row: EntryRow): EntryView => ({
  id: row.id,
  sourceLang: row.source_lang,
  targetLang: row.target_lang,
  sourceText: row.source_text,
  targetText: row.target_text,
  quality: row.quality,
  context: row.context,
  source: row.source,
  entrySource: row.entry_source,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** GET /tm: newest first (tm_entries_list, _by_pair, _by_target or _by_entry_source, by the filters given). */
export async function listEntries(tx: Queryable, siteId: string, query: EntryListQuery): Promise<{ entries: EntryView[]; total: number }> {
  const conditions: SqlFragment[] = [sql`e.site_id = ${siteId}`];
  if (query.source !== undefined) conditions.push(sql`e.source_lang = ${query.source}`);
  if (query.target !== undefined) conditions.push(sql`e.target_lang = ${query.target}`);
  if (query.entrySource !== undefined) conditions.push(sql`e.entry_source = ${query.entrySource}`);
  const where = conditions.reduce((all, condition) => sql`${all} AND ${condition}`);
  const rows = await tx.query<EntryRow>(
    sql`SELECT ${ENTRY_COLUMNS} FROM tm_entries e WHERE ${where} ORDER BY e.created_at DESC, e.id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM tm_entries e WHERE ${where}`);
  return { entries: rows.map(entryViewOf), total: count?.total ?? 0 };
}

export async function findEntry(tx: Queryable, siteId: string, entryId: string): Promise<EntryView | null> {
  const [row] = await tx.query<EntryRow>(sql`SELECT ${ENTRY_COLUMNS} FROM tm_entries e WHERE e.site_id = ${siteId} AND e.id = ${entryId}`);
  return row ? entryViewOf(row) : null;
}

/** The entry of a key (tm_entries_key): the upsert's pre-check and the exact lookup. */
export async function findEntryByKey(tx: Queryable, siteId: string, sourceLang: string, targetLang: string, normalizedSource: string): Promise<EntryView | null> {
  const [row] = await tx.query<EntryRow>(sql`
    SELECT ${ENTRY_COLUMNS} FROM tm_entries e
     WHERE e.site_id = ${siteId} AND e.source_lang = ${sourceLang} AND e.target_lang = ${targetLang}
       AND e.source_key = md5(${normalizedSource}::text) AND e.normalized_source = ${normalizedSource}`);
  return row ? entryViewOf(row) : null;
}

interface TermRow {
  id: string;
  source_lang: string;
  target_lang: string;
  term: string;
  translation: string;
  case_sensitive: boolean;
  created_at: Date;
  updated_at: Date;
}

const TERM_COLUMNS = sql`g.id, g.source_lang, g.target_lang, g.term, g.translation, g.case_sensitive, g.created_at, g.updated_at`;

const termViewOf = (row: TermRow): TermView => ({
  id: row.id,
  sourceLang: row.source_lang,
  targetLang: row.target_lang,
  term: row.term,
  translation: row.translation,
  caseSensitive: row.case_sensitive,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** GET /tm/glossary: by language pair, then term (tm_glossary_key). */
export async function listTerms(tx: Queryable, siteId: string, query: GlossaryListQuery): Promise<{ terms: TermView[]; total: number }> {
  const conditions: SqlFragment[] = [sql`g.site_id = ${siteId}`];
  if (query.source !== undefined) conditions.push(sql`g.source_lang = ${query.source}`);
  if (query.target !== undefined) conditions.push(sql`g.target_lang = ${query.target}`);
  const where = conditions.reduce((all, condition) => sql`${all} AND ${condition}`);
  const rows = await tx.query<TermRow>(sql`
    SELECT ${TERM_COLUMNS} FROM tm_glossary g WHERE ${where}
     ORDER BY g.source_lang, g.target_lang, g.normalized_term, g.id LIMIT ${query.limit} OFFSET ${query.offset}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM tm_glossary g WHERE ${where}`);
  return { terms: rows.map(termViewOf), total: count?.total ?? 0 };
}

export async function findTerm(tx: Queryable, siteId: string, termId: string): Promise<TermView | null> {
  const [row] = await tx.query<TermRow>(sql`SELECT ${TERM_COLUMNS} FROM tm_glossary g WHERE g.site_id = ${siteId} AND g.id = ${termId}`);
  return row ? termViewOf(row) : null;
}

/** The term of a key (tm_glossary_key): the 409 pre-check and the glossary stage. */
export async function findTermByKey(tx: Queryable, siteId: string, sourceLang: string, targetLang: string, normalizedTerm: string): Promise<TermView | null> {
  const [row] = await tx.query<TermRow>(sql`
    SELECT ${TERM_COLUMNS} FROM tm_glossary g
     WHERE g.site_id = ${siteId} AND g.source_lang = ${sourceLang} AND g.target_lang = ${targetLang} AND g.normalized_term = ${normalizedTerm}`);
  return row ? termViewOf(row) : null;
}

/**
 * The pair's terms that occur in `normalizedText` (a provider is given these), at most `limit`,
 * longest first (tm_glossary_key's prefix: the pair's terms, then a substring test each).
 */
export async function termsInText(tx: Queryable, siteId: string, sourceLang: string, targetLang: string, normalizedText: string, limit: number): Promise<TermView[]> {
  const rows = await tx.query<TermRow>(sql`
    SELECT ${TERM_COLUMNS} FROM tm_glossary g
     WHERE g.site_id = ${siteId} AND g.source_lang = ${sourceLang} AND g.target_lang = ${targetLang}
       AND strpos(${normalizedText}::text, g.normalized_term) > 0
     ORDER BY length(g.normalized_term) DESC, g.normalized_term LIMIT ${limit}`);
  return rows.map(termViewOf);
}
