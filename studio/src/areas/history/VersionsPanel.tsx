// An item's named versions: the list, creating one ({ key, name }), and for the chosen one: editing
// its name and data (as JSON), comparing it with main, promoting it to main, and deleting it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { Field, QueryState } from '../../ui/parts.tsx';
import { itemPath, type ItemVersion } from './api.ts';
import { apiJson } from '../../api.ts';
import { VersionDetail } from './VersionDetail.tsx';

export function VersionsPanel({ collection, id }: { collection: string; id: string }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const versions = useQuery({
    queryKey: ['history', collection, id, 'versions'],
    queryFn: async () => (await apiJson<{ data: ItemVersion[] }>(client, 'GET', `${itemPath(collection, id)}/versions`)).data,
  });
  const create = useMutation({
    mutationFn: async (body: { key: string; name: string }) => (await apiJson<{ data: ItemVersion }>(client, 'POST', `${itemPath(collection, id)}/versions`, body)).data,
    onSuccess: async (version) => {
      setKey('');
      setName('');
      setSelected(version.key);
      await queryClient.invalidateQueries({ queryKey: ['history', collection, id, 'versions'] });
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ key: key.trim(), name: name.trim() });
  }

  const list = versions.data ?? [];
  const chosen = list.find((version) => version.key === selected) ?? null;

  return (
    <section className="stack" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Named versions</h2>
      <QueryState query={versions} empty={versions.data && list.length === 0 ? 'No named versions yet.' : undefined} />
      {list.length > 0 ? (
        <table className="data" aria-label="Named versions">
          <thead>
            <tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Based on</th><th scope="col">Updated</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.map((version) => (
              <tr key={version.key} aria-selected={version.key === selected}>
                <td><code>{version.key}</code></td>
                <td>{version.name}</td>
                <td>
                  main v{version.baseVersion} {version.mainChanged ? <span className="badge">main changed since</span> : null}
                </td>
                <td>{new Date(version.updatedAt).toLocaleString()}</td>
                <td><button type="button" onClick={() => setSelected(version.key)} aria-label={`Open version ${version.key}`}>Open</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <form className="card stack" onSubmit={submit} aria-labelledby="new-version-heading">
        <h3 id="new-version-heading">New version</h3>
        <p className="muted">A version starts as a copy of the item’s current content; edit it without touching the item, then promote it.</p>
        <div className="row">
          <Field label="Key" error={errors.fields.key} hint="Lower-case letters, digits, - and _">
            {(fieldId, describedBy) => <input id={fieldId} aria-describedby={describedBy} value={key} onChange={(event) => setKey(event.target.value)} />}
          </Field>
          <Field label="Name" error={errors.fields.name}>
            {(fieldId, describedBy) => <input id={fieldId} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} />}
          </Field>
        </div>
        {errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>)}
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Create version</button>
        </div>
      </form>

      {chosen ? <VersionDetail key={chosen.key} collection={collection} id={id} version={chosen} onDeleted={() => setSelected(null)} /> : null}
    </section>
  );
}
