// The site's collections: the list, a new collection (name and meta), and a soft delete.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useCollections, useFormErrors } from './common.tsx';

export function CollectionsPage() {
  return (
    <AdminOnly>
      <Collections />
    </AdminOnly>
  );
}

function Collections() {
  const client = useClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const collections = useCollections();
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [errors, setErrors] = useFormErrors();
  const create = useMutation({
    mutationFn: async () =>
      (await client.api.POST('/api/v1/collections', { body: { name: name.trim(), ...(displayName.trim() ? { displayName: displayName.trim() } : {}), fields: [] } })).data!.data,
    onSuccess: async (created) => {
      setErrors(null);
      await queryClient.invalidateQueries({ queryKey: ['admin', 'collections'] });
      await navigate({ to: `/admin/collections/${encodeURIComponent(created.name)}` });
    },
    onError: setErrors,
  });
  const remove = useMutation({
    mutationFn: async (collection: string) => client.api.DELETE('/api/v1/collections/{name}', { params: { path: { name: collection } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'collections'] }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  const rows = (collections.data ?? []).filter((collection) => !collection.name.startsWith('svc_'));
  return (
    <section className="stack">
      <PageHeader title="Collections">
        <p className="muted">The content model: each collection's fields, relations and editorial settings.</p>
      </PageHeader>
      <QueryState query={collections} empty={collections.data && rows.length === 0 ? 'No collections yet.' : undefined} />
      <ErrorNote error={remove.error} />
      {rows.length > 0 ? (
        <table className="data" aria-label="Collections">
          <thead>
            <tr><th>Name</th><th>Display name</th><th>Workflow</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {rows.map((collection) => (
              <tr key={collection.name}>
                <td><Link to={`/admin/collections/${encodeURIComponent(collection.name)}`}>{collection.name}</Link></td>
                <td>{collection.displayName ?? '—'}</td>
                <td>{collection.editorialWorkflow ? <span className="badge">editorial review</span> : '—'}</td>
                <td>
                  <ConfirmButton label={`Delete collection ${collection.name}`} question={`Delete the collection ${collection.name}? It is soft-deleted.`} onConfirm={() => remove.mutate(collection.name)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="card stack" onSubmit={submit} aria-labelledby="new-collection">
        <h2 id="new-collection">New collection</h2>
        <Field label="Name" error={errors.fields.name} hint="Lowercase letters, digits and underscores">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} required />}
        </Field>
        <Field label="Display name" error={errors.fields.displayName}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={displayName} onChange={(event) => setDisplayName(event.target.value)} />}
        </Field>
        <GeneralErrors errors={errors} placed={['name', 'displayName']} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Create collection</button>
        </div>
      </form>
    </section>
  );
}
