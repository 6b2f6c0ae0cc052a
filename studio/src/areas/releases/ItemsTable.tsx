// The release's items: which item, the status publishing gives it, live or a pinned revision, and its
// outcome in the last publish; removable while the release may change.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { ErrorNote } from '../../ui/parts.tsx';
import { fetchItems, itemLabel, patchRelease, type ItemRecord, type Release } from './api.ts';

/** The items' names, read per collection (an item that cannot be read shows its id). */
export function useItemLabels(release: Release): Map<string, string> {
  const client = useClient();
  const byCollection = new Map<string, string[]>();
  for (const item of release.items) byCollection.set(item.collection, [...(byCollection.get(item.collection) ?? []), item.itemId]);
  const labels = useQuery({
    queryKey: ['releases', 'labels', release.id, release.updatedAt, release.revertedAt, release.items.map((item) => `${item.collection}/${item.itemId}`).join(',')],
    queryFn: async () => {
      const found = new Map<string, string>();
      for (const [collection, ids] of byCollection) {
        const items: ItemRecord[] = await fetchItems(client, collection, undefined, ids).catch(() => []);
        for (const item of items) found.set(`${collection}/${item.id}`, itemLabel(item, item.id));
      }
      return found;
    },
  });
  return labels.data ?? new Map();
}

export function ItemsTable({ release, editable, onChanged }: { release: Release; editable: boolean; onChanged(next: Release): Promise<void> }) {
  const client = useClient();
  const labels = useItemLabels(release);
  const remove = useMutation({
    mutationFn: (key: { collection: string; itemId: string }) => patchRelease(client, release.id, { removeItems: [key] }),
    onSuccess: onChanged,
  });
  if (release.items.length === 0) return <p className="muted">No items yet{editable ? ': add some below.' : '.'}</p>;
  return (
    <>
      <ErrorNote error={remove.error} />
      <table className="data" aria-label="Release items">
        <thead>
          <tr>
            <th>Collection</th><th>Item</th><th>Target status</th><th>Version</th><th>Last outcome</th>
            {editable ? <th><span className="sr-only">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {release.items.map((item) => {
            const label = labels.get(`${item.collection}/${item.itemId}`) ?? item.itemId;
            return (
              <tr key={`${item.collection}/${item.itemId}`}>
                <td>{item.collection}</td>
                <td>{label}</td>
                <td>{item.targetStatus}</td>
                <td>{item.revisionId ? <span title={item.revisionId}>Pinned revision</span> : 'Live'}</td>
                <td>{item.outcome ? `${item.outcome}${item.reason ? ` (${item.reason})` : ''}` : '—'}</td>
                {editable ? (
                  <td>
                    <button type="button" disabled={remove.isPending} onClick={() => remove.mutate({ collection: item.collection, itemId: item.itemId })} aria-label={`Remove ${label} from the release`}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
