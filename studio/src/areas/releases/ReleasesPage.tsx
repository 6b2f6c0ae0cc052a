// The releases of the site, newest first, filtered by status and paged; and the form that creates one
// (then opens it to add items).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { Field, PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { formatTime, localToIso, RELEASE_STATUSES, STATUS_LABELS, type AtomicityMode, type Release, type ReleaseStatus, type ReleaseSummary } from './api.ts';
import { StatusBadge } from './StatusBadge.tsx';

const PAGE_SIZE = 20;

export function ReleasesPage() {
  const client = useClient();
  const [status, setStatus] = useState<ReleaseStatus | ''>('');
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['releases', 'list', status, page],
    queryFn: async () => {
      const { data } = await client.api.GET('/api/v1/releases', { params: { query: { page, limit: PAGE_SIZE, ...(status ? { status } : {}) } } });
      return data as unknown as { data: ReleaseSummary[]; meta: { total: number } };
    },
  });
  const total = list.data?.meta.total ?? 0;

  return (
    <section className="stack">
      <PageHeader title="Releases">
        <p className="muted">Items published together, now or at a scheduled time within a maintenance window.</p>
      </PageHeader>
      <CreateReleaseForm />
      <h2>All releases</h2>
      <div className="field">
        <label htmlFor="release-status-filter">Status</label>
        <select
          id="release-status-filter"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value as ReleaseStatus | '');
            setPage(1);
          }}
        >
          <option value="">Any status</option>
          {RELEASE_STATUSES.map((value) => (
            <option key={value} value={value}>{STATUS_LABELS[value]}</option>
          ))}
        </select>
      </div>
      <QueryState query={list} empty={list.data && list.data.data.length === 0 ? 'No releases yet.' : undefined} />
      {list.data && list.data.data.length > 0 ? (
        <table className="data" aria-label="Releases">
          <thead>
            <tr><th>Name</th><th>Status</th><th>Items</th><th>Publish at</th><th>Published</th><th>Updated</th></tr>
          </thead>
          <tbody>
            {list.data.data.map((release) => (
              <tr key={release.id}>
                <td><Link to={`/releases/${release.id}`}>{release.name}</Link></td>
                <td><StatusBadge release={release} /></td>
                <td>{release.itemCount}</td>
                <td>{formatTime(release.publishAt)}</td>
                <td>{formatTime(release.publishedAt)}</td>
                <td>{formatTime(release.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {total > PAGE_SIZE ? <Pager label="Release pages" page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} /> : null}
    </section>
  );
}

function CreateReleaseForm() {
  const client = useClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<AtomicityMode>('all_or_nothing');
  const [publishAt, setPublishAt] = useState('');
  const create = useMutation({
    mutationFn: async () => {
      const body = { name, atomicityMode: mode, publishAt: localToIso(publishAt) };
      const { data } = await client.api.POST('/api/v1/releases', { body: body as never });
      return (data as unknown as { data: Release }).data;
    },
    onSuccess: async (release) => {
      await queryClient.invalidateQueries({ queryKey: ['releases', 'list'] });
      await navigate({ to: `/releases/${release.id}` });
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-release-title">
      <h2 id="create-release-title">New release</h2>
      <Field label="Release name" error={errors.fields.name}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} />}
      </Field>
      <Field label="Atomicity" error={errors.fields.atomicityMode} hint="All or nothing publishes no item when one is refused; best effort publishes what it can.">
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={mode} onChange={(event) => setMode(event.target.value as AtomicityMode)}>
            <option value="all_or_nothing">All or nothing</option>
            <option value="best_effort">Best effort</option>
          </select>
        )}
      </Field>
      <Field label="Publish at (optional)" error={errors.fields.publishAt} hint="Your local time. Leave empty for a draft published by hand.">
        {(id, describedBy) => <input id={id} type="datetime-local" aria-describedby={describedBy} value={publishAt} onChange={(event) => setPublishAt(event.target.value)} />}
      </Field>
      {errors.general.map((message) => (
        <p key={message} role="alert" className="alert">{message}</p>
      ))}
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating…' : 'Create release'}</button>
      </div>
    </form>
  );
}
