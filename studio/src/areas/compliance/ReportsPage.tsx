// Compliance reports: ask for one (a period, optionally some collections and actions, JSON or CSV), see
// it queued, running, then completed (or failed), and view or download its file.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { ErrorNote, Field, PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { AdminOnly } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { isoOf, when, type Page, type Report } from './api.ts';
import { apiJson } from '../../api.ts';

const PAGE_SIZE = 20;
const MAX_PREVIEW = 200_000;

/** A Date as a datetime-local input's value, in local time. */
function localValue(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const names = (text: string) => text.split(',').map((name) => name.trim()).filter(Boolean);

function RequestForm({ onDone }: { onDone(): void }) {
  const client = useClient();
  const [from, setFrom] = useState(() => localValue(new Date(Date.now() - 30 * 86_400_000)));
  const [to, setTo] = useState(() => localValue(new Date(Date.now() + 3_600_000)));
  const [format, setFormat] = useState<'json' | 'csv'>('json');
  const [collections, setCollections] = useState('');
  const [actions, setActions] = useState('');
  const request = useMutation({
    mutationFn: (body: Record<string, unknown>) => apiJson<{ data: Report }>(client, 'POST', '/reports/compliance', body),
    onSuccess: onDone,
  });
  const errors = formErrors(request.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    request.mutate({
      from: isoOf(from) ?? from,
      to: isoOf(to) ?? to,
      format,
      ...(names(collections).length > 0 ? { collections: names(collections) } : {}),
      ...(names(actions).length > 0 ? { actions: names(actions) } : {}),
    });
  }

  return (
    <form className="card stack" onSubmit={submit} aria-label="Request a compliance report">
      <h2>Request a report</h2>
      <div className="row">
        <Field label="From" error={errors.fields.from}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="datetime-local" value={from} onChange={(event) => setFrom(event.target.value)} required />}
        </Field>
        <Field label="To" error={errors.fields.to}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="datetime-local" value={to} onChange={(event) => setTo(event.target.value)} required />}
        </Field>
        <Field label="Format" error={errors.fields.format}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={format} onChange={(event) => setFormat(event.target.value as 'json' | 'csv')}>
              <option value="json">JSON</option>
              <option value="csv">CSV</option>
            </select>
          )}
        </Field>
      </div>
      <Field label="Collections" error={errors.fields.collections} hint="Comma-separated; empty for all.">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={collections} onChange={(event) => setCollections(event.target.value)} />}
      </Field>
      <Field label="Actions" error={errors.fields.actions} hint="Comma-separated, e.g. item.created, data_erased; empty for all.">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={actions} onChange={(event) => setActions(event.target.value)} />}
      </Field>
      {errors.general.map((message) => (
        <p key={message} role="alert" className="alert">{message}</p>
      ))}
      <div className="row">
        <button type="submit" className="primary" disabled={request.isPending}>Request report</button>
      </div>
    </form>
  );
}

export function ReportsPage() {
  const client = useClient();
  const admin = useAdminState();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [viewing, setViewing] = useState<Report | null>(null);
  const [downloads, setDownloads] = useState<Record<string, string>>({});
  const reports = useQuery({
    queryKey: ['compliance', 'reports', page],
    enabled: admin === true,
    placeholderData: keepPreviousData,
    queryFn: () => apiJson<Page<Report>>(client, 'GET', `/reports?limit=${PAGE_SIZE}&page=${page}`),
    // Follow the reports still in progress.
    refetchInterval: (query) => (query.state.data?.data.some((report) => report.status === 'queued' || report.status === 'running') ? 1000 : false),
  });
  const file = useQuery({
    queryKey: ['compliance', 'report-file', viewing?.id],
    enabled: viewing !== null,
    queryFn: async () => {
      const response = await client.fetch(new Request(`${client.baseUrl}/api/v1/reports/${viewing!.id}/download`));
      return response.text();
    },
  });
  const prepare = useMutation({
    mutationFn: async (report: Report) => {
      const response = await client.fetch(new Request(`${client.baseUrl}/api/v1/reports/${report.id}/download`));
      return { id: report.id, url: URL.createObjectURL(await response.blob()) };
    },
    onSuccess: ({ id, url }) => setDownloads((current) => ({ ...current, [id]: url })),
  });
  // The object URLs die with the page.
  const made = useRef<Record<string, string>>({});
  made.current = downloads;
  useEffect(() => () => Object.values(made.current).forEach((url) => URL.revokeObjectURL(url)), []);

  if (admin === false) return <AdminOnly />;

  return (
    <section className="stack">
      <PageHeader title="Compliance reports">
        <p className="muted">A signed extract of the audit log over a period, checked against the log's chains and checkpoints.</p>
      </PageHeader>
      <RequestForm onDone={() => void queryClient.invalidateQueries({ queryKey: ['compliance', 'reports'] })} />
      <h2>Reports</h2>
      <ErrorNote error={prepare.error} />
      <QueryState query={reports} empty={reports.data && reports.data.data.length === 0 ? 'No report has been requested.' : undefined} />
      {reports.data && reports.data.data.length > 0 ? (
        <>
          <table className="data" aria-label="Compliance reports">
            <thead>
              <tr><th>Status</th><th>Period</th><th>Scope</th><th>Format</th><th>Requested</th><th>Result</th><th>Actions</th></tr>
            </thead>
            <tbody>
              {reports.data.data.map((report) => (
                <tr key={report.id} data-report={report.id}>
                  <td><span className={`badge ${report.status === 'completed' ? 'ok' : report.status === 'failed' ? 'bad' : ''}`}>{report.status}</span></td>
                  <td>{when(report.params.from)} – {when(report.params.to)}</td>
                  <td>{report.params.collections.length > 0 ? report.params.collections.join(', ') : 'All collections'}; {report.params.actions.length > 0 ? report.params.actions.join(', ') : 'all actions'}</td>
                  <td>{report.params.format.toUpperCase()}</td>
                  <td>{when(report.createdAt)}</td>
                  <td>
                    {report.status === 'completed' ? (
                      <>
                        {report.entries ?? 0} entries, {report.bytes ?? 0} bytes; log {report.valid ? <span className="ok">verified</span> : <span className="bad">{report.problems ?? 0} problems</span>}
                      </>
                    ) : report.status === 'failed' ? (
                      <span className="bad">{report.error ?? 'Failed'}</span>
                    ) : (
                      <span role="status">{report.progress.entries}{report.progress.total !== undefined ? ` of ${report.progress.total}` : ''} entries</span>
                    )}
                  </td>
                  <td>
                    {report.status === 'completed' ? (
                      <div className="row">
                        <button type="button" onClick={() => setViewing(report)} aria-label={`View report of ${when(report.createdAt)}`}>View</button>
                        {downloads[report.id] ? (
                          <a className="button primary" href={downloads[report.id]} download={`compliance-report-${report.id}.${report.params.format}`}>Save file</a>
                        ) : (
                          <button type="button" onClick={() => prepare.mutate(report)} aria-label={`Download report of ${when(report.createdAt)}`}>Download</button>
                        )}
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Reports pages" count={['entry', 'entries']} page={page} pageSize={PAGE_SIZE} total={reports.data.meta.total} onPage={setPage} />
        </>
      ) : null}
      {viewing !== null ? (
        <section className="card stack" aria-labelledby="report-view-title">
          <div className="spread">
            <h2 id="report-view-title">Report of {when(viewing.createdAt)}</h2>
            <button type="button" onClick={() => setViewing(null)}>Close report</button>
          </div>
          <p className="muted">SHA-256 {viewing.sha256}, signed with key {viewing.keyId}</p>
          <QueryState query={file} />
          {file.data !== undefined ? (
            <pre aria-label="Report content" tabIndex={0} style={{ maxHeight: '50vh', overflow: 'auto' }}>{file.data.length > MAX_PREVIEW ? `${file.data.slice(0, MAX_PREVIEW)}\n…` : file.data}</pre>
          ) : null}
        </section>
      ) : null}
    </section>
  );
}
