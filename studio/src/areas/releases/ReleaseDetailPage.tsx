// One release: its state and the actions that state allows (publish, revert, delete), its items (added
// and removed while it may change), its schedule with maintenance windows, its preview, and the
// per-item outcomes of its last publish.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { SvcError } from '@svc-cms/sdk';
import { useState } from 'react';
import { useClient } from '../../session.tsx';
import { Dialog, ErrorNote, QueryState } from '../../ui/parts.tsx';
import { AddItemForm } from './AddItemForm.tsx';
import { allowedActions, DAYS, fetchRelease, formatTime, releaseKey, type Outcome, type PublishResult, type Release } from './api.ts';
import { ItemsTable, useItemLabels } from './ItemsTable.tsx';
import { OutcomesTable } from './OutcomesTable.tsx';
import { ReleasePreview } from './ReleasePreview.tsx';
import { ScheduleForm } from './ScheduleForm.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import './releases.css';

export function ReleaseDetailPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const client = useClient();
  const release = useQuery({
    queryKey: releaseKey(id),
    queryFn: () => fetchRelease(client, id),
    // A scheduled release is published by the scheduler: look again now and then to show it when it is.
    refetchInterval: (query) => (query.state.data?.status === 'scheduled' ? 30_000 : false),
  });
  if (!release.data) {
    return (
      <section className="stack">
        <p><Link to="/releases">All releases</Link></p>
        <h1>Release</h1>
        <QueryState query={release} />
      </section>
    );
  }
  return <ReleaseView release={release.data} />;
}

function ReleaseView({ release }: { release: Release }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const allowed = allowedActions(release);
  const labels = useItemLabels(release);
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [confirmRevert, setConfirmRevert] = useState(false);
  const [reverted, setReverted] = useState<number | null>(null);

  const settle = async (next: Release) => {
    queryClient.setQueryData(releaseKey(release.id), next);
    await queryClient.invalidateQueries({ queryKey: ['releases', 'list'] });
  };

  const publish = useMutation({
    mutationFn: async () => {
      const { data } = await client.api.POST('/api/v1/releases/{id}/publish', { params: { path: { id: release.id } }, body: {} });
      return (data as unknown as { data: PublishResult }).data;
    },
    onSuccess: async (result) => {
      setOutcomes(result.outcomes);
      await settle(result.release);
    },
  });
  const revert = useMutation({
    mutationFn: async (force: boolean) => {
      const { data } = await client.api.POST('/api/v1/releases/{id}/revert', { params: { path: { id: release.id } }, body: { force } });
      return (data as unknown as { data: { release: Release; items: unknown[] } }).data;
    },
    onSuccess: async (result) => {
      setConfirmRevert(false);
      setReverted(result.items.length);
      await settle(result.release);
    },
  });
  const remove = useMutation({
    mutationFn: async () => client.api.DELETE('/api/v1/releases/{id}', { params: { path: { id: release.id } } }),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: releaseKey(release.id) });
      await queryClient.invalidateQueries({ queryKey: ['releases', 'list'] });
      await navigate({ to: '/releases' });
    },
  });
  const revertConflict = revert.error instanceof SvcError && revert.error.code === 'CONFLICT' && Array.isArray(revert.error.extensions.items);
  const shownOutcomes: Outcome[] =
    outcomes ??
    release.items.flatMap((item) => (item.outcome ? [{ collection: item.collection, itemId: item.itemId, outcome: item.outcome, ...(item.reason ? { reason: item.reason } : {}) }] : []));

  return (
    <section className="stack">
      <p><Link to="/releases">All releases</Link></p>
      <div className="spread">
        <div>
          <h1>{release.name}</h1>
          <StatusBadge release={release} />
        </div>
        <div className="row">
          {allowed.publish ? (
            <button type="button" className="primary" disabled={publish.isPending} onClick={() => publish.mutate()}>
              {publish.isPending ? 'Publishing…' : release.status === 'draft' || release.status === 'scheduled' ? 'Publish now' : 'Publish again'}
            </button>
          ) : null}
          {allowed.revert ? <button type="button" onClick={() => setConfirmRevert(true)}>Revert release</button> : null}
          {allowed.delete ? <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>Delete release</button> : null}
        </div>
      </div>
      <dl className="release-facts">
        <dt>Atomicity</dt>
        <dd>{release.atomicityMode === 'all_or_nothing' ? 'All or nothing' : 'Best effort'}</dd>
        <dt>Publish at</dt>
        <dd>{formatTime(release.publishAt)}</dd>
        <dt>Maintenance windows (UTC)</dt>
        <dd>{release.maintenanceWindow ? release.maintenanceWindow.windows.map((w) => `${DAYS[w.dow]} ${w.start}–${w.end}`).join(', ') : 'Any time'}</dd>
        <dt>Published</dt>
        <dd>{formatTime(release.publishedAt)}</dd>
        <dt>Reverted</dt>
        <dd>{formatTime(release.revertedAt)}</dd>
      </dl>
      {release.status === 'published' ? <p className="notice">A published release is a record: its items and schedule can no longer change.</p> : null}
      <ErrorNote error={publish.error} />
      {publish.data ? (
        <p role="status" className="notice">
          Publish finished: {publish.data.status.replace('_', ' ')} ({publish.data.outcomes.filter((o) => o.outcome === 'published').length} of {publish.data.outcomes.length} items published).
        </p>
      ) : null}
      {reverted !== null ? <p role="status" className="notice">Release reverted: {reverted} item{reverted === 1 ? '' : 's'} restored.</p> : null}
      <ErrorNote error={remove.error} />

      <h2>Items</h2>
      <ItemsTable release={release} editable={allowed.editItems} onChanged={settle} />
      {allowed.editItems ? <AddItemForm release={release} onAdded={settle} /> : null}

      {shownOutcomes.length > 0 ? (
        <>
          <h2>Outcomes of the last publish</h2>
          <OutcomesTable outcomes={shownOutcomes} labels={labels} />
        </>
      ) : null}

      {allowed.schedule ? <ScheduleForm release={release} canUnschedule={allowed.unschedule} onSaved={settle} /> : null}
      {allowed.preview ? <ReleasePreview release={release} /> : null}

      <Dialog open={confirmRevert} onOpenChange={(open) => { setConfirmRevert(open); if (!open) revert.reset(); }} title="Revert this release?">
        <div className="stack">
          <p>Every item the release published goes back to the state it had before the release.</p>
          <ErrorNote error={revert.error} />
          {revertConflict ? <p>Items changed since the release published them. Reverting anyway overwrites those later changes.</p> : null}
          <div className="row">
            <button type="button" className="danger" disabled={revert.isPending} onClick={() => revert.mutate(revertConflict)}>
              {revertConflict ? 'Revert anyway' : 'Revert'}
            </button>
          </div>
        </div>
      </Dialog>
      <Dialog open={confirmDelete} onOpenChange={setConfirmDelete} title="Delete this release?">
        <div className="stack">
          <p>The release and its list of items are deleted; the items themselves are not changed.</p>
          <ErrorNote error={remove.error} />
          <div className="row">
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>Delete</button>
          </div>
        </div>
      </Dialog>
    </section>
  );
}
