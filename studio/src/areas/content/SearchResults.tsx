// Full-text search hits of one collection (GET /search?collection=&q=): each hit's matched fields with
// their highlights (the service marks matches with <mark>; shown sanitized) and a link to the item.
import DOMPurify from 'dompurify';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useClient } from '../../session.tsx';
import { QueryState } from '../../ui/parts.tsx';
import { itemLabel } from './api.ts';
import { call } from '../../api.ts';

interface Hit {
  collection: string;
  id: string;
  score: number;
  highlights: Record<string, string>;
  item: Record<string, unknown>;
}

export function SearchResults({ collection, q }: { collection: string; q: string }) {
  const client = useClient();
  const hits = useQuery({
    queryKey: ['search', collection, q],
    queryFn: async () => (await call<{ data: Hit[]; meta: { total: number } }>(client, 'GET', '/search', { query: { collection, q, limit: 20 } })).body,
  });
  return (
    <section className="card" aria-labelledby="search-heading">
      <h2 id="search-heading">Search results for “{q}”{hits.data ? ` (${hits.data.meta.total})` : ''}</h2>
      <QueryState query={hits} />
      {hits.data && hits.data.data.length === 0 ? <p className="muted">Nothing found.</p> : null}
      <ul className="content-hits" aria-label="Search results">
        {(hits.data?.data ?? []).map((hit) => (
          <li key={hit.id}>
            <Link to="/collections/$collection/$id" params={{ collection, id: hit.id }}>{itemLabel({ id: hit.id, ...hit.item })}</Link>
            {Object.entries(hit.highlights).map(([field, html]) => (
              <div key={field} className="muted content-small">
                {field}: {/* Sanitized: only the marks of the service's highlights survive. */}
                <span dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(html, { ALLOWED_TAGS: ['mark', 'b', 'em'] }) }} />
              </div>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
