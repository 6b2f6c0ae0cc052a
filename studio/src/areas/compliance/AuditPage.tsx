// The audit log: filtered by action, actor, target and date range (the filters GET /audit serves),
// newest first, paged; an entry opens to show its details.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useClient } from '../../session.tsx';
import { PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, nameOf, TimeRangeFields, useFilterForm, useSiteUsers } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { queryString, timeRange, when, type AuditEntry, type Page } from './api.ts';
import { apiJson } from '../../api.ts';

interface AuditFilters {
  action: string;
  actor: string;
  target: string;
  from: string;
  to: string;
}

const EMPTY: AuditFilters = { action: '', actor: '', target: '', from: '', to: '' };
const PAGE_SIZE = 25;

/** The filter GET /audit takes: action and target by prefix when ending in `*`, actor by id, a time range. */
export function auditFilter(filters: AuditFilters): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  const action = filters.action.trim();
  if (action) filter.action = action.endsWith('*') ? { _starts_with: action.slice(0, -1) } : { _eq: action };
  if (filters.actor) filter.actor = { _eq: filters.actor };
  const target = filters.target.trim();
  if (target) filter.target = target.endsWith('*') ? { _starts_with: target.slice(0, -1) } : { _eq: target };
  const range = timeRange(filters.from, filters.to);
  if (range) filter.occurredAt = range;
  return filter;
}

export function AuditPage() {
  const client = useClient();
  const admin = useAdminState();
  const users = useSiteUsers(admin === true);
  const { draft, applied, page, setPage, set, apply, clear } = useFilterForm(EMPTY);
  const [open, setOpen] = useState<string | null>(null);
  const entries = useQuery({
    queryKey: ['compliance', 'audit', applied, page],
    enabled: admin === true,
    placeholderData: keepPreviousData,
    queryFn: () => apiJson<Page<AuditEntry>>(client, 'GET', `/audit${queryString({ filter: auditFilter(applied), limit: PAGE_SIZE, page })}`),
  });

  if (admin === false) return <AdminOnly />;


  return (
    <section className="stack">
      <PageHeader title="Audit log">
        <p className="muted">Every recorded action of the site, newest first. Values of personal fields are never in it.</p>
      </PageHeader>
      <form className="card row" onSubmit={apply} aria-label="Audit log filters">
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <input id="audit-action" value={draft.action} onChange={set('action')} placeholder="item.created or item.*" aria-describedby="audit-action-hint" />
          <span id="audit-action-hint" className="hint">End with * to match a prefix.</span>
        </div>
        <div className="field">
          <label htmlFor="audit-actor">Actor</label>
          <select id="audit-actor" value={draft.actor} onChange={set('actor')}>
            <option value="">Anyone</option>
            {users.map((user) => (
              <option key={user.id} value={user.id}>{user.email}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-target">Target</label>
          <input id="audit-target" value={draft.target} onChange={set('target')} placeholder="item:articles:*" />
        </div>
        <TimeRangeFields prefix="audit" from={draft.from} to={draft.to} set={set} />
        <div className="row">
          <button type="submit" className="primary">Apply filters</button>
          <button type="button" onClick={clear}>Clear</button>
        </div>
      </form>
      <QueryState query={entries} empty={entries.data && entries.data.data.length === 0 ? 'No entry matches these filters.' : undefined} />
      {entries.data && entries.data.data.length > 0 ? (
        <>
          <table className="data" aria-label="Audit entries">
            <thead>
              <tr><th>When</th><th>Action</th><th>Actor</th><th>Target</th><th><span className="sr-only">Details</span></th></tr>
            </thead>
            <tbody>
              {entries.data.data.map((entry) => (
                <Fragment key={entry.eventId}>
                  <tr>
                    <td>{when(entry.occurredAt)}</td>
                    <td><code>{entry.action}</code></td>
                    <td>
                      {nameOf(users, entry.actor.id, entry.actor.kind)}
                      {entry.actor.impersonatorId ? <span className="badge">impersonated by {nameOf(users, entry.actor.impersonatorId)}</span> : null}
                      {entry.agent ? <span className="badge">agent for {nameOf(users, entry.agent.onBehalfOf)}</span> : null}
                    </td>
                    <td><code>{entry.target}</code></td>
                    <td>
                      <button type="button" aria-expanded={open === entry.eventId} onClick={() => setOpen(open === entry.eventId ? null : entry.eventId)} aria-label={`Details of ${entry.action} at ${when(entry.occurredAt)}`}>
                        {open === entry.eventId ? 'Hide' : 'Details'}
                      </button>
                    </td>
                  </tr>
                  {open === entry.eventId ? (
                    <tr>
                      <td colSpan={5}>
                        <dl className="stack">
                          <div><dt>Event</dt><dd><code>{entry.eventId}</code></dd></div>
                          <div><dt>Request</dt><dd><code>{entry.requestId ?? '—'}</code></dd></div>
                          <div><dt>Details</dt><dd><pre>{JSON.stringify(entry.details, null, 2)}</pre></dd></div>
                        </dl>
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
          <Pager label="Audit log pages" count={['entry', 'entries']} page={page} pageSize={PAGE_SIZE} total={entries.data.meta.total} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}
