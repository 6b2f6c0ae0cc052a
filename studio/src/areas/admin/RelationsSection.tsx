// A collection's relations: the list (both directions), a new m2o or o2m relation, and removal.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote, Field, QueryState } from '../../ui/parts.tsx';
import { GeneralErrors, useCollections, useFormErrors } from './common.tsx';

interface Relation {
  id: string;
  kind: string;
  collection: string;
  field: string;
  relatedCollection: string | null;
  relatedField: string | null;
  onDelete: string;
}

type OnDelete = 'restrict' | 'set null' | 'cascade';

export function RelationsSection({ collection }: { collection: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const collections = useCollections();
  const relations = useQuery({
    queryKey: ['admin', 'relations'],
    queryFn: async () => (await client.api.GET('/api/v1/relations', { params: { query: {} } })).data!.data as unknown as Relation[],
  });
  const [kind, setKind] = useState<'m2o' | 'o2m'>('m2o');
  const [field, setField] = useState('');
  const [related, setRelated] = useState('');
  const [relatedField, setRelatedField] = useState('');
  const [onDelete, setOnDelete] = useState<OnDelete>('set null');
  const [errors, setErrors] = useFormErrors();
  const invalidate = async () => {
    await queryClient.invalidateQueries({ queryKey: ['admin', 'relations'] });
    await queryClient.invalidateQueries({ queryKey: ['admin', 'fields'] });
  };
  const create = useMutation({
    mutationFn: async () =>
      client.api.POST('/api/v1/relations', {
        body: { kind, collection, field: field.trim(), relatedCollection: related || null, relatedField: relatedField.trim() || null, onDelete },
      }),
    onSuccess: async () => {
      setErrors(null);
      setField('');
      setRelatedField('');
      await invalidate();
    },
    onError: setErrors,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/relations/{id}', { params: { path: { id } } }),
    onSuccess: invalidate,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  const rows = (relations.data ?? []).filter((relation) => relation.collection === collection || relation.relatedCollection === collection);
  const others = (collections.data ?? []).map((row) => row.name).filter((name) => !name.startsWith('svc_'));
  return (
    <section className="stack" aria-labelledby="relations-heading">
      <h2 id="relations-heading">Relations</h2>
      <QueryState query={relations} empty={relations.data && rows.length === 0 ? 'No relations yet.' : undefined} />
      <ErrorNote error={remove.error} />
      {rows.length > 0 ? (
        <table className="data" aria-label="Relations">
          <thead>
            <tr><th>Kind</th><th>From</th><th>To</th><th>On delete</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {rows.map((relation) => (
              <tr key={relation.id}>
                <td>{relation.kind}</td>
                <td>{relation.collection}.{relation.field}</td>
                <td>{relation.relatedCollection ?? '—'}{relation.relatedField ? `.${relation.relatedField}` : ''}</td>
                <td>{relation.onDelete}</td>
                <td>
                  <button type="button" className="danger" aria-label={`Delete relation ${relation.collection}.${relation.field}`} onClick={() => remove.mutate(relation.id)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="card stack" onSubmit={submit} aria-labelledby="new-relation">
        <h3 id="new-relation">New relation</h3>
        <p className="muted">
          m2o: this collection's field (type uuid or string, created first) stores the related item's id. o2m: this collection's field is an alias,
          and the related collection's field stores this item's id.
        </p>
        <Field label="Kind" error={errors.fields.kind}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={kind} onChange={(event) => setKind(event.target.value as 'm2o' | 'o2m')}>
              <option value="m2o">many to one (m2o)</option>
              <option value="o2m">one to many (o2m)</option>
            </select>
          )}
        </Field>
        <Field label="Field of this collection" error={errors.fields.field}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={field} onChange={(event) => setField(event.target.value)} required />}
        </Field>
        <Field label="Related collection" error={errors.fields.relatedCollection}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={related} onChange={(event) => setRelated(event.target.value)} required>
              <option value="">Choose…</option>
              {others.map((name) => <option key={name} value={name}>{name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Related field" error={errors.fields.relatedField} hint={kind === 'm2o' ? 'Optional: an o2m alias on the other side' : 'The related collection’s field that stores the id'}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={relatedField} onChange={(event) => setRelatedField(event.target.value)} />}
        </Field>
        <Field label="On delete" error={errors.fields.onDelete}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={onDelete} onChange={(event) => setOnDelete(event.target.value as OnDelete)}>
              <option value="set null">set null</option>
              <option value="restrict">restrict</option>
              <option value="cascade">cascade</option>
            </select>
          )}
        </Field>
        <GeneralErrors errors={errors} placed={['kind', 'field', 'relatedCollection', 'relatedField', 'onDelete']} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Create relation</button>
        </div>
      </form>
    </section>
  );
}
