// One policy: its name and description, its permission rules (per collection and action, with a
// field list and a filter), and where it is attached (roles and users).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, useRoles, type Policy } from './common.tsx';
import { PolicyRules } from './PolicyRules.tsx';
import { useUsers } from './UsersPage.tsx';

export function PolicyPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  return (
    <AdminOnly>
      <PolicyView id={id} />
    </AdminOnly>
  );
}

function PolicyView({ id }: { id: string }) {
  const client = useClient();
  const policy = useQuery({
    queryKey: ['admin', 'policy', id],
    queryFn: async () => (await client.api.GET('/api/v1/policies/{id}', { params: { path: { id } } })).data!.data as unknown as Policy,
  });
  return (
    <section className="stack">
      <p><Link to="/admin/policies">← Policies</Link></p>
      <PageHeader title={policy.data ? `Policy ${policy.data.name}` : 'Policy'} />
      <QueryState query={policy} />
      {policy.data ? <PolicyForm policy={policy.data} /> : null}
      {policy.data ? <PolicyRules policyId={id} /> : null}
      {policy.data ? <Attachments policy={policy.data} /> : null}
    </section>
  );
}

function PolicyForm({ policy }: { policy: Policy }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [name, setName] = useState(policy.name);
  const [description, setDescription] = useState(policy.description ?? '');
  const [errors, setErrors] = useFormErrors();
  const save = useMutation({
    mutationFn: async () => client.api.PATCH('/api/v1/policies/{id}', { params: { path: { id: policy.id } }, body: { name: name.trim(), description: description.trim() || null } }),
    onSuccess: async () => {
      setErrors(null);
      await queryClient.invalidateQueries({ queryKey: ['admin', 'policy', policy.id] });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'policies'] });
    },
    onError: setErrors,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="policy-details">
      <h2 id="policy-details">Details</h2>
      <Field label="Policy name" error={errors.fields.name}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} required />}
      </Field>
      <Field label="Description" error={errors.fields.description}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={description} onChange={(event) => setDescription(event.target.value)} />}
      </Field>
      <GeneralErrors errors={errors} placed={['name', 'description']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>Save policy</button>
        {save.isSuccess ? <span role="status" className="ok">Saved</span> : null}
      </div>
    </form>
  );
}

function Attachments({ policy }: { policy: Policy }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const roles = useRoles();
  const users = useUsers();
  const [target, setTarget] = useState('');
  const [errors, setErrors] = useFormErrors();
  const change = useMutation({
    mutationFn: async ({ value, attach }: { value: string; attach: boolean }) => {
      const [kind, targetId] = value.split(':') as ['role' | 'user', string];
      const body = kind === 'role' ? { roleId: targetId } : { userId: targetId };
      const path = { params: { path: { id: policy.id } }, body };
      return attach ? client.api.POST('/api/v1/policies/{id}/attach', path) : client.api.POST('/api/v1/policies/{id}/detach', path);
    },
    onSuccess: async () => {
      setErrors(null);
      setTarget('');
      await queryClient.invalidateQueries({ queryKey: ['admin', 'policy', policy.id] });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'policies'] });
    },
    onError: setErrors,
  });
  const roleName = new Map((roles.data ?? []).map((role) => [role.id, role.name]));
  const userName = new Map((users.data ?? []).map((user) => [user.id, user.email]));
  const attached = [
    ...policy.attachments.roles.map((id) => ({ key: `role:${id}`, label: `Role ${roleName.get(id) ?? id}` })),
    ...policy.attachments.users.map((id) => ({ key: `user:${id}`, label: `User ${userName.get(id) ?? id}` })),
    ...policy.attachments.teams.map((id) => ({ key: `team:${id}`, label: `Team ${id}` })),
  ];
  function submit(event: FormEvent) {
    event.preventDefault();
    if (target) change.mutate({ value: target, attach: true });
  }
  return (
    <section className="card stack" aria-labelledby="policy-attachments">
      <h2 id="policy-attachments">Attached to</h2>
      {attached.length === 0 ? <p className="muted">Not attached: its rules apply to no one yet.</p> : null}
      <ul aria-label="Attachments">
        {attached.map((entry) => (
          <li key={entry.key} className="row">
            {entry.label}
            {entry.key.startsWith('team:') ? null : (
              <button type="button" aria-label={`Detach from ${entry.label}`} onClick={() => change.mutate({ value: entry.key, attach: false })}>Detach</button>
            )}
          </li>
        ))}
      </ul>
      <form className="row" onSubmit={submit}>
        <Field label="Attach to" error={errors.fields.roleId ?? errors.fields.userId}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={target} onChange={(event) => setTarget(event.target.value)}>
              <option value="">Choose a role or user…</option>
              <optgroup label="Roles">
                {(roles.data ?? []).map((role) => <option key={role.id} value={`role:${role.id}`}>{role.name}</option>)}
              </optgroup>
              <optgroup label="Users">
                {(users.data ?? []).map((user) => <option key={user.id} value={`user:${user.id}`}>{user.email}</option>)}
              </optgroup>
            </select>
          )}
        </Field>
        <button type="submit" disabled={!target || change.isPending}>Attach</button>
      </form>
      <GeneralErrors errors={errors} placed={['roleId', 'userId']} />
      <ErrorNote error={roles.error ?? users.error} />
    </section>
  );
}
