// Adds an item to the release: a collection, one of its items, the status publishing gives it, and
// whether the release takes the item live (as it stands at publish time) or pinned to a revision.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { errorText } from '../../ui/errors.ts';
import { Field } from '../../ui/parts.tsx';
import { fetchCollections, fetchItems, fetchRevisions, itemLabel, patchRelease, type Release } from './api.ts';
import { placeErrors } from './errors.ts';

export function AddItemForm({ release, onAdded }: { release: Release; onAdded(next: Release): Promise<void> }) {
  const client = useClient();
  const [collection, setCollection] = useState('');
  const [itemId, setItemId] = useState('');
  const [targetStatus, setTargetStatus] = useState('published');
  const [pinned, setPinned] = useState(false);
  const [revisionId, setRevisionId] = useState('');
  const collections = useQuery({ queryKey: ['releases', 'collections'], queryFn: () => fetchCollections(client) });
  const items = useQuery({
    queryKey: ['releases', 'items', collection],
    enabled: collection !== '',
    queryFn: () => fetchItems(client, collection),
  });
  const revisions = useQuery({
    queryKey: ['releases', 'revisions', collection, itemId],
    enabled: pinned && collection !== '' && itemId !== '',
    queryFn: () => fetchRevisions(client, collection, itemId),
  });
  const add = useMutation({
    mutationFn: () =>
      patchRelease(client, release.id, {
        addItems: [{ collection, itemId, targetStatus, ...(pinned && revisionId ? { revisionId } : {}) }],
      }),
    onSuccess: async (next) => {
      setItemId('');
      setRevisionId('');
      setPinned(false);
      await onAdded(next);
    },
  });
  const errors = placeErrors(add.error, (path) => {
    if (path[0] !== 'addItems') return null;
    const field = path[2];
    if (field === 'revisionId') return 'revisionId';
    if (field === 'targetStatus') return 'targetStatus';
    if (field === 'collection') return 'collection';
    return 'itemId';
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate();
  }

  const pinnable = (revisions.data ?? []).filter((revision) => !revision.staged);
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="add-item-title">
      <h3 id="add-item-title">Add an item</h3>
      {collections.error || items.error || revisions.error ? (
        <p role="alert" className="alert">{errorText(collections.error ?? items.error ?? revisions.error)}</p>
      ) : null}
      <div className="row">
        <Field label="Collection" error={errors.fields.collection}>
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={collection}
              required
              onChange={(event) => {
                setCollection(event.target.value);
                setItemId('');
                setRevisionId('');
              }}
            >
              <option value="">Choose a collection</option>
              {(collections.data ?? []).map((entry) => (
                <option key={entry.name} value={entry.name}>{entry.displayName || entry.name}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Item" error={errors.fields.itemId}>
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={itemId}
              required
              disabled={collection === ''}
              onChange={(event) => {
                setItemId(event.target.value);
                setRevisionId('');
              }}
            >
              <option value="">{collection === '' ? 'Choose a collection first' : items.isPending ? 'Loading…' : 'Choose an item'}</option>
              {(items.data ?? []).map((item) => (
                <option key={item.id} value={item.id}>{itemLabel(item, item.id)}{item.status ? ` (${item.status})` : ''}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Target status" error={errors.fields.targetStatus} hint="The status the item gets when the release is published.">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={targetStatus} required onChange={(event) => setTargetStatus(event.target.value)} />}
        </Field>
      </div>
      <fieldset className="stack">
        <legend>Version to publish</legend>
        <label className="row">
          <input type="radio" name="release-item-version" checked={!pinned} onChange={() => setPinned(false)} />
          Live: the item as it stands when the release is published
        </label>
        <label className="row">
          <input type="radio" name="release-item-version" checked={pinned} onChange={() => setPinned(true)} />
          Pinned: a fixed revision of the item
        </label>
      </fieldset>
      {pinned ? (
        <Field label="Revision" error={errors.fields.revisionId}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={revisionId} required disabled={itemId === ''} onChange={(event) => setRevisionId(event.target.value)}>
              <option value="">{itemId === '' ? 'Choose an item first' : revisions.isPending ? 'Loading…' : 'Choose a revision'}</option>
              {pinnable.map((revision) => (
                <option key={revision.revisionId} value={revision.revisionId}>
                  Version {revision.version}: {itemLabel(revision.data as never, revision.event)} ({new Date(revision.timestamp).toLocaleString()})
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {errors.general.map((message) => (
        <p key={message} role="alert" className="alert">{message}</p>
      ))}
      <div className="row">
        <button type="submit" className="primary" disabled={add.isPending}>{add.isPending ? 'Adding…' : 'Add to release'}</button>
      </div>
    </form>
  );
}
