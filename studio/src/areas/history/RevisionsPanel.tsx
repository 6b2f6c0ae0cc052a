// An item's revisions, newest first: when, who, which event and which fields changed; a revision's
// diff against the one before it or against the current item; revert to it (after confirming); and
// a jump to time travel at its moment.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../session.tsx';
import { Dialog, ErrorNote, Pager, QueryState } from '../../ui/parts.tsx';
import { itemPath, SYSTEM_FIELDS, type Json, type Revision } from './api.ts';
import { apiJson } from '../../api.ts';
import { Diff } from './Diff.tsx';
import { usePersonName } from './people.ts';

const PAGE_SIZE = 50;

export function RevisionsPanel({ collection, id, current, onTimeTravel }: { collection: string; id: string; current: Json | null; onTimeTravel(moment: string): void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const personName = usePersonName();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const [against, setAgainst] = useState<'previous' | 'current'>('previous');
  const [reverting, setReverting] = useState<Revision | null>(null);
  const [reverted, setReverted] = useState<string | null>(null);

  const revisions = useQuery({
    queryKey: ['history', collection, id, 'revisions', page],
    queryFn: async () => apiJson<{ data: Revision[]; meta: { total: number } }>(client, 'GET', `${itemPath(collection, id)}/revisions?limit=${PAGE_SIZE}&page=${page}`),
  });
  const revert = useMutation({
    mutationFn: async (revision: Revision) => apiJson<{ data: Json }>(client, 'POST', `${itemPath(collection, id)}/revert`, { revisionId: revision.revisionId }),
    onSuccess: async (_answer, revision) => {
      setReverting(null);
      setReverted(`Reverted to the revision of ${new Date(revision.timestamp).toLocaleString()} (version ${revision.version}).`);
      await queryClient.invalidateQueries({ queryKey: ['history', collection, id] });
    },
  });

  const list = revisions.data?.data ?? [];
  const total = revisions.data?.meta.total ?? 0;
  const index = list.findIndex((revision) => revision.revisionId === selected);
  const chosen = index >= 0 ? list[index]! : null;
  const previous = index >= 0 ? (list[index + 1]?.data ?? null) : null;
  const previousKnown = index >= 0 && (index + 1 < list.length || page * PAGE_SIZE >= total);

  return (
    <section className="stack" aria-labelledby="revisions-heading">
      <h2 id="revisions-heading">Revisions</h2>
      {reverted ? <p role="status" className="notice">{reverted}</p> : null}
      <ErrorNote error={revert.error && !reverting ? revert.error : null} />
      {revisions.data ? null : <QueryState query={revisions} />}
      {revisions.data && list.length === 0 ? <p className="muted">No revisions yet.</p> : null}
      {list.length > 0 ? (
        <table className="data" aria-label="Revisions">
          <thead>
            <tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Event</th><th scope="col">Changed</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.map((revision) => {
              const when = new Date(revision.timestamp).toLocaleString();
              const changed = Object.keys(revision.delta ?? {}).filter((key) => !SYSTEM_FIELDS.has(key));
              return (
                <tr key={revision.revisionId} aria-selected={revision.revisionId === selected}>
                  <td>{when} <span className="muted">v{revision.version}</span></td>
                  <td>{revision.actor.kind === 'user' ? personName(revision.actor.id) : `${revision.actor.kind} ${revision.actor.id ?? ''}`}</td>
                  <td>{revision.event}{revision.staged ? <> <span className="badge">staged</span></> : null}</td>
                  <td>{changed.length > 0 ? changed.join(', ') : <span className="muted">—</span>}</td>
                  <td>
                    <div className="row">
                      <button type="button" onClick={() => setSelected(revision.revisionId)} aria-label={`Show changes of version ${revision.version}`}>Changes</button>
                      <button type="button" onClick={() => onTimeTravel(revision.timestamp)} aria-label={`Show the item as of version ${revision.version}`}>As of</button>
                      <button type="button" onClick={() => { revert.reset(); setReverting(revision); }} aria-label={`Revert to version ${revision.version}`}>Revert</button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {total > PAGE_SIZE ? <Pager label="Revision pages" page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} previous="Newer" next="Older" /> : null}

      {chosen ? (
        <div className="card stack">
          <div className="spread">
            <h3>Changes of version {chosen.version} ({chosen.event})</h3>
            <div className="field">
              <label htmlFor="diff-against">Compare with</label>
              <select id="diff-against" value={against} onChange={(event) => setAgainst(event.target.value as 'previous' | 'current')}>
                <option value="previous">the revision before it</option>
                <option value="current">the current item</option>
              </select>
            </div>
          </div>
          {against === 'previous' ? (
            previousKnown ? (
              <Diff label={`Changes of version ${chosen.version}`} before={previous} after={chosen.data} beforeLabel="Before" afterLabel={`Version ${chosen.version}`} />
            ) : (
              <p className="muted">The revision before it is on the next page.</p>
            )
          ) : (
            <Diff label={`Version ${chosen.version} against the current item`} before={chosen.data} after={current} beforeLabel={`Version ${chosen.version}`} afterLabel="Current" />
          )}
        </div>
      ) : null}

      <Dialog open={reverting !== null} onOpenChange={(open) => { if (!open) setReverting(null); }} title="Revert to this revision?">
        {reverting ? (
          <div className="stack">
            <p>
              The item’s content becomes that of version {reverting.version} ({new Date(reverting.timestamp).toLocaleString()}). The revert is itself recorded as a new
              revision, so it can be undone the same way.
            </p>
            <Diff label="What the revert changes" before={current} after={reverting.data} beforeLabel="Current" afterLabel="After the revert" />
            <ErrorNote error={revert.error} />
            <div className="row">
              <button type="button" className="primary" disabled={revert.isPending} onClick={() => revert.mutate(reverting)}>{revert.isPending ? 'Reverting…' : 'Revert'}</button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </section>
  );
}
