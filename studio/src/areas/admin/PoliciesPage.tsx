// Policies: the list (with where each is attached and how many rules it holds), a new policy, and
// deletion. A policy's rules and attachments are on its own page.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, type Policy } from './common.tsx';

export function usePolicies() {
  const client = useClient();
  return useQuery({
    queryKey: ['admin', 'policies'],
    queryFn: async () => (await client.api.GET('/api/v1/policies', { params: { query: { limit: 100 } } })).data!.data as unknown as Policy[],
  });
}

export function PoliciesPage() {
  return (
    <AdminOnly>
      <Policies />
    </AdminOnly>
  );
}

function Policies() {
  const client = useClient();
  const queryClient = useQueryClient();
  const policies = usePolicies();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useFormErrors();
  const create = useMutation({
    mutationFn: async () => client.api.POST('/api/v1/policies', { body: { name: name.trim(), description: description.trim() || null } }),
    onSuccess: async () => {
      setErrors(null);
      setName('');
      setDescription('');
      await queryClient.invalidateQueries({ queryKey: ['admin', 'policies'] });
    },
    onError: setErrors,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/policies/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'policies'] }),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <section className="stack">
      <PageHeader title="Policies">
        <p className="muted">A policy holds permission rules; attach it to roles, users or teams.</p>
      </PageHeader>
      <QueryState query={policies} empty={policies.data?.length === 0 ? 'No policies yet.' : undefined} />
      <ErrorNote error={remove.error} />
      {policies.data && policies.data.length > 0 ? (
        <table className="data" aria-label="Policies">
          <thead>
            <tr><th>Name</th><th>Rules</th><th>Attached to</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {policies.data.map((policy) => (
              <tr key={policy.id}>
                <td><Link to={`/admin/policies/${policy.id}`}>{policy.name}</Link>{policy.description ? <span className="muted"> — {policy.description}</span> : null}</td>
                <td>{policy.permissionCount}</td>
                <td>{policy.attachments.roles.length} roles, {policy.attachments.users.length} users, {policy.attachments.teams.length} teams</td>
                <td>
                  <ConfirmButton label={`Delete policy ${policy.name}`} question={`Delete the policy ${policy.name}?`} onConfirm={() => remove.mutate(policy.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="card stack" onSubmit={submit} aria-labelledby="new-policy">
        <h2 id="new-policy">New policy</h2>
        <Field label="Policy name" error={errors.fields.name}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} required />}
        </Field>
        <Field label="Description" error={errors.fields.description}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={description} onChange={(event) => setDescription(event.target.value)} />}
        </Field>
        <GeneralErrors errors={errors} placed={['name', 'description']} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Create policy</button>
        </div>
      </form>
    </section>
  );
}
