// API keys: the list (prefix only), a new key whose secret is shown once with a copy button and never
// again (it stays in this component's state until the dialog closes), and revocation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, Dialog, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors, useRoles } from './common.tsx';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  roleId: string | null;
  userId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export function ApiKeysPage() {
  return (
    <AdminOnly>
      <ApiKeys />
    </AdminOnly>
  );
}

function ApiKeys() {
  const client = useClient();
  const queryClient = useQueryClient();
  const roles = useRoles();
  const keys = useQuery({
    queryKey: ['admin', 'api-keys'],
    queryFn: async () => (await client.api.GET('/api/v1/api-keys')).data!.data as ApiKey[],
  });
  const [name, setName] = useState('');
  const [roleId, setRoleId] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [errors, setErrors] = useFormErrors();
  const create = useMutation({
    mutationFn: async () =>
      (
        await client.api.POST('/api/v1/api-keys', {
          body: { name: name.trim(), roleId: roleId || null, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null },
        })
      ).data!.data,
    onSuccess: async (created) => {
      setErrors(null);
      setName('');
      setCopied(false);
      setSecret({ name: created.name, key: created.key });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'api-keys'] });
    },
    onError: setErrors,
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'api-keys'] }),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  const roleName = new Map((roles.data ?? []).map((role) => [role.id, role.name]));
  return (
    <section className="stack">
      <PageHeader title="API keys">
        <p className="muted">Keys let scripts and services call the API. A key’s secret is shown once, when it is created.</p>
      </PageHeader>
      <QueryState query={keys} empty={keys.data?.length === 0 ? 'No API keys yet.' : undefined} />
      <ErrorNote error={revoke.error} />
      {keys.data && keys.data.length > 0 ? (
        <table className="data" aria-label="API keys">
          <thead>
            <tr><th>Name</th><th>Prefix</th><th>Role</th><th>Created</th><th>Last used</th><th>Expires</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td><code>{key.prefix}…</code></td>
                <td>{key.roleId ? roleName.get(key.roleId) ?? key.roleId : key.userId ? 'as its user' : '—'}</td>
                <td>{new Date(key.createdAt).toLocaleString()}</td>
                <td>{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : 'never'}</td>
                <td>{key.expiresAt ? new Date(key.expiresAt).toLocaleString() : 'never'}</td>
                <td>
                  <ConfirmButton label={`Revoke key ${key.name}`} question={`Revoke the key ${key.name}? Anything using it stops working.`} onConfirm={() => revoke.mutate(key.id)}>Revoke</ConfirmButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="card stack" onSubmit={submit} aria-labelledby="new-key">
        <h2 id="new-key">New API key</h2>
        <Field label="Key name" error={errors.fields.name}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} required />}
        </Field>
        <Field label="Role" error={errors.fields.roleId} hint="The key acts with this role’s permissions; none: as you">
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={roleId} onChange={(event) => setRoleId(event.target.value)}>
              <option value="">None (acts as you)</option>
              {(roles.data ?? []).map((role) => <option key={role.id} value={role.id}>{role.name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Expires" error={errors.fields.expiresAt}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="datetime-local" value={expiresAt} onChange={(event) => setExpiresAt(event.target.value)} />}
        </Field>
        <GeneralErrors errors={errors} placed={['name', 'roleId', 'expiresAt']} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Create key</button>
        </div>
      </form>
      <Dialog open={secret !== null} onOpenChange={(open) => (open ? null : setSecret(null))} title={`Key ${secret?.name ?? ''} created`}>
        {secret ? (
          <div className="stack">
            <p className="notice">Copy the key now: it is not shown again.</p>
            <Field label="Secret key">
              {(id) => <input id={id} readOnly value={secret.key} onFocus={(event) => event.target.select()} />}
            </Field>
            <div className="row">
              <button
                type="button"
                className="primary"
                onClick={() => void navigator.clipboard.writeText(secret.key).then(() => setCopied(true), () => setCopied(false))}
              >
                Copy key
              </button>
              {copied ? <span role="status" className="ok">Copied</span> : null}
            </div>
          </div>
        ) : null}
      </Dialog>
    </section>
  );
}
