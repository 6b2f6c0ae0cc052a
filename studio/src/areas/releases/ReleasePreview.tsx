// The release's preview: its items read twice, live and with `X-Svc-Release` (the API's preview of the
// items as they will stand once the release is published, writing nothing), side by side: the status
// each gets, and the fields a pinned revision changes.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useClient } from '../../session.tsx';
import { QueryState } from '../../ui/parts.tsx';
import { fetchItems, itemLabel, type ItemRecord, type Release } from './api.ts';

/** Columns the preview keeps from the live item (not a change the release makes). */
const BOOKKEEPING = new Set(['id', 'version', 'createdAt', 'updatedAt', 'userCreated', 'userUpdated', 'deletedAt']);

interface PreviewRow {
  key: string;
  collection: string;
  itemId: string;
  live: ItemRecord | undefined;
  after: ItemRecord | undefined;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '(empty)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function ReleasePreview({ release }: { release: Release }) {
  const client = useClient();
  const [open, setOpen] = useState(false);
  const preview = useQuery({
    queryKey: ['releases', 'preview', release.id, release.updatedAt],
    enabled: open,
    staleTime: 0,
    queryFn: async (): Promise<PreviewRow[]> => {
      const byCollection = new Map<string, string[]>();
      for (const item of release.items) byCollection.set(item.collection, [...(byCollection.get(item.collection) ?? []), item.itemId]);
      const rows: PreviewRow[] = [];
      for (const [collection, ids] of byCollection) {
        const [live, after] = await Promise.all([
          fetchItems(client, collection, undefined, ids),
          fetchItems(client, collection, { 'x-svc-release': release.id }, ids),
        ]);
        for (const itemId of ids) {
          rows.push({ key: `${collection}/${itemId}`, collection, itemId, live: live.find((item) => item.id === itemId), after: after.find((item) => item.id === itemId) });
        }
      }
      return rows;
    },
  });

  return (
    <section className="card stack" aria-labelledby="preview-title">
      <div className="spread">
        <h2 id="preview-title">Preview</h2>
        <button type="button" onClick={() => (open ? void preview.refetch() : setOpen(true))} disabled={release.items.length === 0}>
          {open ? 'Refresh preview' : 'Preview the release'}
        </button>
      </div>
      <p className="muted">The items as they will be once this release is published. Nothing is written.</p>
      {open ? <QueryState query={preview} /> : null}
      {open && preview.data ? (
        <ul className="stack" aria-label="Previewed items">
          {preview.data.map((row) => {
            const label = itemLabel(row.after ?? row.live, row.itemId);
            const changed = row.after && row.live
              ? Object.keys({ ...row.live, ...row.after }).filter((field) => !BOOKKEEPING.has(field) && field !== 'status' && JSON.stringify(row.live?.[field]) !== JSON.stringify(row.after?.[field]))
              : [];
            return (
              <li key={row.key} className="release-preview-item">
                <h3>{label} <span className="muted">({row.collection})</span></h3>
                {!row.after ? (
                  <p className="bad">This item cannot be published: it was deleted or cannot be read.</p>
                ) : (
                  <dl className="release-facts">
                    <dt>Status</dt>
                    <dd>
                      {row.live?.status === row.after.status ? (
                        <span>{show(row.after.status)} (unchanged)</span>
                      ) : (
                        <>
                          <span className="diff-removed">{show(row.live?.status)}</span> → <span className="diff-added">{show(row.after.status)}</span>
                        </>
                      )}
                    </dd>
                    {changed.map((field) => (
                      <div key={field} className="contents">
                        <dt>{field}</dt>
                        <dd>
                          <span className="diff-removed">{show(row.live?.[field])}</span> → <span className="diff-added">{show(row.after?.[field])}</span>
                        </dd>
                      </div>
                    ))}
                    {changed.length === 0 ? (
                      <>
                        <dt>Content</dt>
                        <dd>Unchanged</dd>
                      </>
                    ) : null}
                  </dl>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
