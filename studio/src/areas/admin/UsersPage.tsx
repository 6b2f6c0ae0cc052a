// Users: the list (with role and status), a new user, an invitation by email, edits of role and
// status, deletion, and a user's active sessions (each revocable).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, Dialog, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, useRoles, type Role, type User } from './common.tsx';
import { UserSessions } from './UserSessions.tsx';

export function useUsers() {
  const client = useClient();
  return useQuery({
    queryKey: ['admin', 'users'],
    queryFn: async () => (await client.api.GET('/api/v1/users', { params: { query: { limit: 100 } } })).data!.data as unknown as User[],
  });
}

export function UsersPage() {
  return (
    <AdminOnly>
      <Users />
    </AdminOnly>
  );
}

type Editing = { mode: 'create' } | { mode: 'invite' } | { mode: 'edit'; user: User } | { mode: 'sessions'; user: User } | null;

function Users() {
  const client = useClient();
  const queryClient = useQueryClient();
  const users = useUsers();
  const roles = useRoles();
  const [editing, setEditing] = useState<Editing>(null);
  const remove = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/users/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'users'] }),
  });
  const roleName = new Map((roles.data ?? []).map((role) => [role.id, role.name]));
  const title =
    editing === null ? '' : editing.mode === 'create' ? 'New user' : editing.mode === 'invite' ? 'Invite a user' : editing.mode === 'edit' ? `Edit ${editing.user.email}` : `Sessions of ${editing.user.email}`;
  return (
    <section className="stack">
      <PageHeader
        title="Users"
        actions={
          <>
            <button type="button" onClick={() => setEditing({ mode: 'invite' })}>Invite by email</button>
            <button type="button" className="primary" onClick={() => setEditing({ mode: 'create' })}>New user</button>
          </>
        }
      />
      <QueryState query={users} />
      <ErrorNote error={remove.error} />
      {users.data ? (
        <table className="data" aria-label="Users">
          <thead>
            <tr><th>Email</th><th>Name</th><th>Role</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {users.data.map((user) => (
              <tr key={user.id}>
                <td>{user.email}</td>
                <td>{[user.firstName, user.lastName].filter(Boolean).join(' ') || '—'}</td>
                <td>{user.roleId ? roleName.get(user.roleId) ?? user.roleId : '—'}</td>
                <td><span className="badge">{user.status}</span></td>
                <td className="row">
                  <button type="button" aria-label={`Edit user ${user.email}`} onClick={() => setEditing({ mode: 'edit', user })}>Edit</button>
                  <button type="button" aria-label={`Sessions of ${user.email}`} onClick={() => setEditing({ mode: 'sessions', user })}>Sessions</button>
                  <ConfirmButton label={`Delete user ${user.email}`} question={`Delete the user ${user.email}?`} onConfirm={() => remove.mutate(user.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Dialog open={editing !== null} onOpenChange={(open) => (open ? null : setEditing(null))} title={title}>
        {editing?.mode === 'sessions' ? <UserSessions user={editing.user} /> : null}
        {editing && editing.mode !== 'sessions' ? (
          <UserForm mode={editing.mode} existing={editing.mode === 'edit' ? editing.user : null} roles={roles.data ?? []} onDone={() => setEditing(null)} />
        ) : null}
      </Dialog>
    </section>
  );
}

function UserForm({ mode, existing, roles, onDone }: { mode: 'create' | 'invite' | 'edit'; existing: User | null; roles: Role[]; onDone(): void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(existing?.email ?? '');
  const [firstName, setFirstName] = useState(existing?.firstName ?? '');
  const [lastName, setLastName] = useState(existing?.lastName ?? '');
  const [password, setPassword] = useState('');
  const [roleId, setRoleId] = useState(existing?.roleId ?? '');
  const [status, setStatus] = useState<'active' | 'suspended'>(existing?.status === 'suspended' ? 'suspended' : 'active');
  const [errors, setErrors] = useFormErrors();
  const save = useMutation({
    mutationFn: async () => {
      const names = { firstName: firstName.trim() || null, lastName: lastName.trim() || null, roleId: roleId || null };
      if (mode === 'edit' && existing) {
        return client.api.PATCH('/api/v1/users/{id}', {
          params: { path: { id: existing.id } },
          body: { ...names, email: email.trim(), status, ...(password ? { password } : {}) },
        });
      }
      if (mode === 'invite') return client.api.POST('/api/v1/users/invite', { body: { ...names, email: email.trim() } });
      return client.api.POST('/api/v1/users', { body: { ...names, email: email.trim(), password } });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'users'] });
      onDone();
    },
    onError: setErrors,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <form className="stack" onSubmit={submit}>
      <Field label="Email" error={errors.fields.email}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="email" value={email} onChange={(event) => setEmail(event.target.value)} required />}
      </Field>
      <Field label="First name" error={errors.fields.firstName}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={firstName} onChange={(event) => setFirstName(event.target.value)} />}
      </Field>
      <Field label="Last name" error={errors.fields.lastName}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={lastName} onChange={(event) => setLastName(event.target.value)} />}
      </Field>
      {mode === 'invite' ? null : (
        <Field label={mode === 'edit' ? 'New password (optional)' : 'Password'} error={errors.fields.password}>
          {(id, describedBy) => (
            <input id={id} aria-describedby={describedBy} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} required={mode === 'create'} />
          )}
        </Field>
      )}
      <Field label="Role" error={errors.fields.roleId}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={roleId} onChange={(event) => setRoleId(event.target.value)}>
            <option value="">No role</option>
            {roles.map((role) => <option key={role.id} value={role.id}>{role.name}</option>)}
          </select>
        )}
      </Field>
      {mode === 'edit' ? (
        <Field label="Status" error={errors.fields.status}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={status} onChange={(event) => setStatus(event.target.value as 'active' | 'suspended')}>
              <option value="active">active</option>
              <option value="suspended">suspended</option>
            </select>
          )}
        </Field>
      ) : null}
      <GeneralErrors errors={errors} placed={['email', 'firstName', 'lastName', 'password', 'roleId', 'status']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>{mode === 'invite' ? 'Send invitation' : mode === 'edit' ? 'Save user' : 'Create user'}</button>
      </div>
    </form>
  );
}
