// The site's dashboards: listed for every member; created, renamed and deleted by administrators.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { useIsAdmin } from '../../ui/permissions.ts';
import { ConfirmButton, Dialog, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { insightsKeys, type Dashboard } from './api.ts';
import { apiJson } from '../../api.ts';

function NameForm({ initial, label, pending, error, onSubmit }: { initial: string; label: string; pending: boolean; error: unknown; onSubmit(name: string): void }) {
  const [name, setName] = useState(initial);
  const errors = formErrors(error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(name);
  };
  return (
    <form className="row" onSubmit={submit} aria-label={label}>
      {errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>)}
      <Field label="Dashboard name" error={errors.fields.name}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={name} onChange={(event) => setName(event.target.value)} maxLength={220} />}
      </Field>
      <button type="submit" className="primary" disabled={pending}>{label}</button>
    </form>
  );
}

export function DashboardsPage() {
  const client = useClient();
  const queryClient = useQueryClient();
  const admin = useIsAdmin();
  const [renaming, setRenaming] = useState<Dashboard | null>(null);
  const [formKey, setFormKey] = useState(0);
  const list = useQuery({
    queryKey: insightsKeys.dashboards,
    queryFn: async () => (await apiJson<{ data: Dashboard[] }>(client, 'GET', '/dashboards?limit=100')).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: insightsKeys.dashboards });
  const create = useMutation({
    mutationFn: (name: string) => apiJson<{ data: Dashboard }>(client, 'POST', '/dashboards', { name }),
    onSuccess: () => {
      setFormKey((key) => key + 1);
      return refresh();
    },
  });
  const rename = useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => apiJson(client, 'PATCH', `/dashboards/${id}`, { name }),
    onSuccess: () => {
      setRenaming(null);
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => apiJson(client, 'DELETE', `/dashboards/${id}`),
    onSuccess: refresh,
  });

  return (
    <section className="stack">
      <PageHeader title="Dashboards">
        <p className="muted">Panels of aggregate queries over the site's content, drawn as charts.</p>
      </PageHeader>
      {admin ? (
        <div className="card">
          <h2>New dashboard</h2>
          <NameForm key={formKey} initial="" label="Create dashboard" pending={create.isPending} error={create.error} onSubmit={(name) => create.mutate(name)} />
        </div>
      ) : null}
      <ErrorNote error={remove.error} />
      {list.data && list.data.length > 0 ? (
        <table className="data" aria-label="Dashboards">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Panels</th><th scope="col">Updated</th>{admin ? <th scope="col"><span className="sr-only">Actions</span></th> : null}</tr>
          </thead>
          <tbody>
            {list.data.map((dashboard) => (
              <tr key={dashboard.id}>
                <td><Link to="/dashboards/$id" params={{ id: dashboard.id }}>{dashboard.name}</Link></td>
                <td>{dashboard.panelCount}</td>
                <td>{new Date(dashboard.updatedAt).toLocaleString()}</td>
                {admin ? (
                  <td className="row">
                    <button type="button" onClick={() => { rename.reset(); setRenaming(dashboard); }} aria-label={`Rename ${dashboard.name}`}>Rename</button>
                    <ConfirmButton label={`Delete ${dashboard.name}`} question={`Delete the dashboard “${dashboard.name}” and its panels?`} onConfirm={() => remove.mutate(dashboard.id)} />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <QueryState query={list} empty="No dashboards yet." />
      )}
      <Dialog open={renaming !== null} onOpenChange={(open) => { if (!open) setRenaming(null); }} title="Rename dashboard">
        {renaming ? (
          <NameForm initial={renaming.name} label="Save name" pending={rename.isPending} error={rename.error} onSubmit={(name) => rename.mutate({ id: renaming.id, name })} />
        ) : null}
      </Dialog>
    </section>
  );
}
