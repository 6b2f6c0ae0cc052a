// Roles: the list, a new role (name, description, parent, administrator), edits, deletion, and a
// preview of what a role may do in each collection.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, Dialog, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, useRoles, type Role } from './common.tsx';
import { RolePreview } from './RolePreview.tsx';

export function RolesPage() {
  return (
    <AdminOnly>
      <Roles />
    </AdminOnly>
  );
}

function Roles() {
  const client = useClient();
  const queryClient = useQueryClient();
  const roles = useRoles();
  const [editing, setEditing] = useState<Role | 'new' | null>(null);
  const [previewing, setPreviewing] = useState<Role | null>(null);
  const remove = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/roles/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'roles'] }),
  });
  const names = new Map((roles.data ?? []).map((role) => [role.id, role.name]));
  return (
    <section className="stack">
      <PageHeader title="Roles" actions={<button type="button" className="primary" onClick={() => setEditing('new')}>New role</button>}>
        <p className="muted">A role inherits the policies of its parent. Attach policies to roles on the policy’s page.</p>
      </PageHeader>
      <QueryState query={roles} />
      <ErrorNote error={remove.error} />
      {roles.data ? (
        <table className="data" aria-label="Roles">
          <thead>
            <tr><th>Name</th><th>Parent</th><th>Administrator</th><th>Description</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {roles.data.map((role) => (
              <tr key={role.id}>
                <td>{role.name} {role.systemKey ? <span className="badge">system</span> : null}</td>
                <td>{role.parentId ? names.get(role.parentId) ?? role.parentId : '—'}</td>
                <td>{role.admin ? 'yes' : 'no'}</td>
                <td>{role.description ?? ''}</td>
                <td className="row">
                  <button type="button" aria-label={`Preview role ${role.name}`} onClick={() => setPreviewing(role)}>Preview</button>
                  <button type="button" aria-label={`Edit role ${role.name}`} onClick={() => setEditing(role)}>Edit</button>
                  <ConfirmButton label={`Delete role ${role.name}`} question={`Delete the role ${role.name}?`} onConfirm={() => remove.mutate(role.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {previewing ? <RolePreview role={previewing} /> : null}
      <Dialog open={editing !== null} onOpenChange={(open) => (open ? null : setEditing(null))} title={editing === 'new' || editing === null ? 'New role' : `Edit role ${editing.name}`}>
        {editing !== null ? <RoleForm existing={editing === 'new' ? null : editing} roles={roles.data ?? []} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </section>
  );
}

function RoleForm({ existing, roles, onDone }: { existing: Role | null; roles: Role[]; onDone(): void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [name, setName] = useState(existing?.name ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [parentId, setParentId] = useState(existing?.parentId ?? '');
  const [admin, setAdmin] = useState(existing?.admin === true);
  const [errors, setErrors] = useFormErrors();
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), description: description.trim() || null, parentId: parentId || null, admin };
      if (existing) return client.api.PATCH('/api/v1/roles/{id}', { params: { path: { id: existing.id } }, body });
      return client.api.POST('/api/v1/roles', { body });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'roles'] });
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
      <Field label="Role name" error={errors.fields.name}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} required />}
      </Field>
      <Field label="Description" error={errors.fields.description}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={description} onChange={(event) => setDescription(event.target.value)} />}
      </Field>
      <Field label="Parent role" error={errors.fields.parentId}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={parentId} onChange={(event) => setParentId(event.target.value)}>
            <option value="">None</option>
            {roles.filter((role) => role.id !== existing?.id).map((role) => <option key={role.id} value={role.id}>{role.name}</option>)}
          </select>
        )}
      </Field>
      <label className="row">
        <input type="checkbox" checked={admin} onChange={(event) => setAdmin(event.target.checked)} /> Site administrator (may do everything)
      </label>
      <GeneralErrors errors={errors} placed={['name', 'description', 'parentId']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>{existing ? 'Save role' : 'Create role'}</button>
      </div>
    </form>
  );
}
