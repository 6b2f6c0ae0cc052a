// One collection: its meta (display name, icon, note, editorial workflow, separate reviewer), its
// fields (added, edited and removed in a dialog) and its relations.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, type CollectionRow } from './common.tsx';
import { FieldsSection } from './FieldsSection.tsx';
import { RelationsSection } from './RelationsSection.tsx';

export function CollectionPage() {
  const { name } = useParams({ strict: false }) as { name: string };
  return (
    <AdminOnly>
      <Collection name={name} />
    </AdminOnly>
  );
}

function Collection({ name }: { name: string }) {
  const client = useClient();
  const collection = useQuery({
    queryKey: ['admin', 'collection', name],
    queryFn: async () => (await client.api.GET('/api/v1/collections/{name}', { params: { path: { name } } })).data!.data as CollectionRow,
  });
  return (
    <section className="stack">
      <p><Link to="/admin/collections">← Collections</Link></p>
      <PageHeader title={`Collection ${name}`} />
      <QueryState query={collection} />
      {collection.data ? <MetaForm collection={collection.data} /> : null}
      {collection.data ? <FieldsSection collection={name} /> : null}
      {collection.data ? <RelationsSection collection={name} /> : null}
    </section>
  );
}

function MetaForm({ collection }: { collection: CollectionRow }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [displayName, setDisplayName] = useState(collection.displayName ?? '');
  const [icon, setIcon] = useState(collection.icon ?? '');
  const [note, setNote] = useState(collection.note ?? '');
  const [workflow, setWorkflow] = useState(collection.editorialWorkflow === true);
  const [separate, setSeparate] = useState(collection.requireSeparateReviewer === true);
  const [errors, setErrors] = useFormErrors();
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [displayName, icon, note, workflow, separate]);
  const save = useMutation({
    mutationFn: async () =>
      (
        await client.api.PATCH('/api/v1/collections/{name}', {
          params: { path: { name: collection.name } },
          body: { displayName: displayName || null, icon: icon || null, note: note || null, editorialWorkflow: workflow, requireSeparateReviewer: separate },
        })
      ).data!.data,
    onSuccess: async () => {
      setErrors(null);
      setSaved(true);
      await queryClient.invalidateQueries({ queryKey: ['admin', 'collection', collection.name] });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'collections'] });
    },
    onError: setErrors,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="collection-meta">
      <h2 id="collection-meta">Settings</h2>
      <Field label="Display name" error={errors.fields.displayName}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={displayName} onChange={(event) => setDisplayName(event.target.value)} />}
      </Field>
      <Field label="Icon" error={errors.fields.icon} hint="An icon name, e.g. article">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={icon} onChange={(event) => setIcon(event.target.value)} />}
      </Field>
      <Field label="Note" error={errors.fields.note}>
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={note} onChange={(event) => setNote(event.target.value)} />}
      </Field>
      <label className="row">
        <input type="checkbox" checked={workflow} onChange={(event) => setWorkflow(event.target.checked)} /> Editorial workflow (items are reviewed before publishing)
      </label>
      <label className="row">
        <input type="checkbox" checked={separate} onChange={(event) => setSeparate(event.target.checked)} /> Require a reviewer other than the author
      </label>
      {errors.fields.editorialWorkflow || errors.fields.requireSeparateReviewer ? (
        <p role="alert" className="alert">{errors.fields.editorialWorkflow ?? errors.fields.requireSeparateReviewer}</p>
      ) : null}
      <GeneralErrors errors={errors} placed={['displayName', 'icon', 'note', 'editorialWorkflow', 'requireSeparateReviewer']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>Save settings</button>
        {saved ? <span role="status" className="ok">Saved</span> : null}
      </div>
    </form>
  );
}
