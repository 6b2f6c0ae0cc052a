// Full-text search of items (the search read model, search_documents): accent-insensitive prefix
// matching of every query word. The list's `search` parameter (REST and GraphQL) narrows a list to
// the items that match; GET /search ranks them (src/modules/search).
import { raw, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { queryWords } from '../search/highlights.ts';

export const MAX_SEARCH_WORDS = 32;

/** The tsquery of `words`: each a quoted, folded prefix lexeme, all required ('tieng':* & 'viet':*). */
export function prefixQuery(words: readonly string[]): SqlFragment {
  return sql`to_tsquery('simple'::regconfig,
      array_to_string(ARRAY(SELECT quote_literal(svc_fold_accents(word)) || ':*' FROM unnest(${words}::text[]) AS word), ' & '))`;
}

/** Items `alias` of `collection` whose search document matches every word of `q` (none: nothing matches). */
export function searchCondition(siteId: string, collection: string, q: string, alias: string): SqlFragment {
  const words = queryWords(q).slice(0, MAX_SEARCH_WORDS);
  if (words.length === 0) return sql`FALSE`;
  return sql`${raw(alias)}.id IN (SELECT d.id FROM search_documents d
    WHERE d.site_id = ${siteId} AND d.collection = ${collection} AND d.document @@ ${prefixQuery(words)})`;
}
