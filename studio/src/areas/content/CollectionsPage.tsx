// The collections the user may read (GET /collections answers only those), each with its item count:
// an unfiltered total, which the service answers from kept per-status counts at any size.
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useClient } from '../../session.tsx';
import { QueryState } from '../../ui/parts.tsx';
import { enc, getCollections } from './api.ts';
import { call } from '../../api.ts';

export function CollectionsPage() {
  const client = useClient();
  const collections = useQuery({ queryKey: ['collections'], queryFn: () => getCollections(client) });
  const counts = useQueries({
    queries: (collections.data ?? []).map((collection) => ({
      queryKey: ['items', collection.name, 'count'],
      queryFn: async () =>
        (await call<{ meta?: { total?: number } }>(client, 'GET', `/items/${enc(collection.name)}`, { query: { fields: 'id', limit: 1, meta: 'total_count' } })).body.meta?.total ?? null,
    })),
  });
  return (
    <section className="stack">
      <h1>Collections</h1>
      <QueryState query={collections} empty={collections.data?.length === 0 ? 'No collection you may read.' : undefined} />
      {collections.data && collections.data.length > 0 ? (
        <table className="data" aria-label="Collections">
          <thead>
            <tr><th>Collection</th><th>Items</th><th>Note</th></tr>
          </thead>
          <tbody>
            {collections.data.map((collection, index) => {
              const count = counts[index];
              return (
                <tr key={collection.name}>
                  <td><Link to="/collections/$collection" params={{ collection: collection.name }}>{String(collection.meta?.displayName ?? collection.displayName ?? collection.name)}</Link></td>
                  <td>{count?.data !== undefined && count.data !== null ? count.data.toLocaleString() : count?.error ? <span className="muted">—</span> : ''}</td>
                  <td className="muted">{String(collection.meta?.note ?? collection.note ?? '')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
