// The field-access log: every read that returned pii/phi fields decrypted — who read which fields of
// which record, and when (never the values); filtered by reader, collection, record and time.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, nameOf, TimeRangeFields, useFilterForm, useSiteUsers } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { queryString, timeRange, when, type FieldAccessEntry, type Page } from './api.ts';
import { apiJson } from '../../api.ts';

interface AccessFilters {
  actor: string;
  collection: string;
  itemId: string;
  from: string;
  to: string;
}

const EMPTY: AccessFilters = { actor: '', collection: '', itemId: '', from: '', to: '' };
const PAGE_SIZE = 25;

function accessFilter(filters: AccessFilters): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (filters.actor) filter.actor = { _eq: filters.actor };
  if (filters.collection.trim()) filter.collection = { _eq: filters.collection.trim() };
  if (filters.itemId.trim()) filter.itemId = { _eq: filters.itemId.trim() };
  const range = timeRange(filters.from, filters.to);
  if (range) filter.at = range;
  return filter;
}

export function AccessLogPage() {
  const client = useClient();
  const admin = useAdminState();
  const users = useSiteUsers(admin === true);
  const { draft, applied, page, setPage, set, apply, clear } = useFilterForm(EMPTY);
  const collections = useQuery({
    queryKey: ['compliance', 'collections'],
    enabled: admin === true,
    queryFn: async () => (await apiJson<{ data: { name: string }[] }>(client, 'GET', '/collections')).data,
  });
  const entries = useQuery({
    queryKey: ['compliance', 'field-access', applied, page],
    enabled: admin === true,
    placeholderData: keepPreviousData,
    queryFn: () => apiJson<Page<FieldAccessEntry>>(client, 'GET', `/admin/field-access-log${queryString({ filter: accessFilter(applied), limit: PAGE_SIZE, page })}`),
  });

  if (admin === false) return <AdminOnly />;

  return (
    <section className="stack">
      <PageHeader title="Field-access log" actions={<button type="button" onClick={() => void entries.refetch()}>Refresh</button>}>
        <p className="muted">Who read which personal (pii) or health (phi) fields of which record, and when. The values are never logged.</p>
      </PageHeader>
      <form className="card row" onSubmit={apply} aria-label="Field-access log filters">
        <div className="field">
          <label htmlFor="access-actor">Reader</label>
          <select id="access-actor" value={draft.actor} onChange={set('actor')}>
            <option value="">Anyone</option>
            {users.map((user) => (
              <option key={user.id} value={user.id}>{user.email}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="access-collection">Collection</label>
          <select id="access-collection" value={draft.collection} onChange={set('collection')}>
            <option value="">Any</option>
            {['_users', ...(collections.data ?? []).map((collection) => collection.name)].map((name) => (
              <option key={name} value={name}>{name === '_users' ? 'User profiles (_users)' : name}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="access-item">Record id</label>
          <input id="access-item" value={draft.itemId} onChange={set('itemId')} />
        </div>
        <TimeRangeFields prefix="access" from={draft.from} to={draft.to} set={set} />
        <div className="row">
          <button type="submit" className="primary">Apply filters</button>
          <button type="button" onClick={clear}>Clear</button>
        </div>
      </form>
      <QueryState query={entries} empty={entries.data && entries.data.data.length === 0 ? 'No read of a personal field matches these filters.' : undefined} />
      {entries.data && entries.data.data.length > 0 ? (
        <>
          <table className="data" aria-label="Field reads">
            <thead>
              <tr><th>When</th><th>Reader</th><th>Collection</th><th>Record</th><th>Fields</th><th>Sensitivity</th><th>Request</th></tr>
            </thead>
            <tbody>
              {entries.data.data.map((entry, index) => (
                <tr key={`${entry.at}-${entry.itemId}-${entry.sensitivity}-${index}`}>
                  <td>{when(entry.at)}</td>
                  <td>{nameOf(users, entry.actor.id, entry.actor.kind)}</td>
                  <td>{entry.collection}</td>
                  <td><code>{entry.itemId}</code></td>
                  <td>{entry.fields.join(', ')}</td>
                  <td><span className="badge">{entry.sensitivity}</span></td>
                  <td><code>{entry.requestId ?? '—'}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Field reads pages" count={['entry', 'entries']} page={page} pageSize={PAGE_SIZE} total={entries.data.meta.total} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}
