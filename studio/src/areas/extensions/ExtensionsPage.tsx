// The site's extensions (administrators): listed with their signer, status and grants; enabled,
// disabled, granted capabilities (a subset of what the bundle asks for); new bundles uploaded.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useClient } from '../../session.tsx';
import { errorText } from '../../ui/errors.ts';
import { useIsAdmin } from '../../ui/permissions.ts';
import { Dialog, ErrorNote, PageHeader, QueryState } from '../../ui/parts.tsx';
import { apiJson } from '../../api.ts';
import { extensionKeys, type Extension } from './api.ts';
import { UploadForm } from './UploadForm.tsx';

function CapabilitiesForm({ extension, onSaved }: { extension: Extension; onSaved(): void }) {
  const client = useClient();
  const [granted, setGranted] = useState<string[]>(extension.capabilities.granted);
  const save = useMutation({
    mutationFn: () => apiJson(client, 'POST', `/extensions/${extension.id}/capabilities`, { capabilities: granted }),
    onSuccess: onSaved,
  });
  return (
    <form className="stack" onSubmit={(event) => { event.preventDefault(); save.mutate(); }}>
      <ErrorNote error={save.error} />
      <fieldset className="stack">
        <legend>Granted capabilities of {extension.name}</legend>
        {extension.capabilities.requested.length === 0 ? <p className="muted">The bundle asks for none.</p> : null}
        {extension.capabilities.requested.map((capability) => (
          <label key={capability} className="row">
            <input
              type="checkbox"
              checked={granted.includes(capability)}
              onChange={(event) => setGranted((current) => (event.target.checked ? [...current, capability] : current.filter((other) => other !== capability)))}
            />
            <code>{capability}</code>
          </label>
        ))}
      </fieldset>
      <div className="row"><button type="submit" className="primary" disabled={save.isPending}>Save capabilities</button></div>
    </form>
  );
}

export function ExtensionsPage() {
  const client = useClient();
  const queryClient = useQueryClient();
  const admin = useIsAdmin();
  const [granting, setGranting] = useState<Extension | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const list = useQuery({
    queryKey: extensionKeys.list,
    queryFn: async () => (await apiJson<{ data: Extension[] }>(client, 'GET', '/extensions?limit=100')).data,
  });
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: extensionKeys.list }), queryClient.invalidateQueries({ queryKey: extensionKeys.manifest })]);
  const toggle = useMutation({
    mutationFn: ({ extension, enable }: { extension: Extension; enable: boolean }) => apiJson(client, 'POST', `/extensions/${extension.id}/${enable ? 'enable' : 'disable'}`),
    onSuccess: refresh,
  });

  return (
    <section className="stack">
      <PageHeader title="Extensions">
        <p className="muted">Signed bundles that add panels to the Studio and run in the service's sandbox with the capabilities granted here.</p>
      </PageHeader>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      <ErrorNote error={toggle.error} />
      {list.data && list.data.length > 0 ? (
        <table className="data" aria-label="Extensions">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Status</th><th scope="col">Signer</th><th scope="col">Capabilities granted</th><th scope="col">Studio panels</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.map((extension) => (
              <tr key={extension.id}>
                <td>
                  <strong>{extension.name}</strong> {extension.official ? <span className="badge">official</span> : null}
                  {extension.description ? <div className="muted">{extension.description}</div> : null}
                </td>
                <td>{extension.version}</td>
                <td><span className={extension.status === 'enabled' ? 'ok' : 'muted'}>{extension.status}</span></td>
                <td><code>{extension.signerKeyId}</code></td>
                <td>{extension.capabilities.granted.length ? extension.capabilities.granted.join(', ') : 'none'} <span className="muted">of {extension.capabilities.requested.length}</span></td>
                <td>{extension.ui ? `${extension.ui.panels} (${extension.ui.locations.join(', ')})` : '—'}</td>
                <td className="row">
                  <button type="button" onClick={() => toggle.mutate({ extension, enable: extension.status !== 'enabled' })} aria-label={`${extension.status === 'enabled' ? 'Disable' : 'Enable'} ${extension.name}`}>
                    {extension.status === 'enabled' ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" onClick={() => setGranting(extension)} aria-label={`Capabilities of ${extension.name}`}>Capabilities</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.error && !admin ? (
        <p role="alert" className="alert">Only site administrators manage extensions. {errorText(list.error)}</p>
      ) : (
        <QueryState query={list} empty="No extensions installed." />
      )}
      {admin ? (
        <div className="card">
          <h2>Upload a signed bundle</h2>
          <UploadForm
            onUploaded={(extension, upgraded) => {
              setNotice(`${upgraded ? 'Upgraded' : 'Installed'} ${extension.name} ${extension.version}${upgraded ? '' : ' (disabled until enabled)'}.`);
              void refresh();
            }}
          />
        </div>
      ) : null}
      <Dialog open={granting !== null} onOpenChange={(open) => { if (!open) setGranting(null); }} title="Capabilities">
        {granting ? <CapabilitiesForm extension={granting} onSaved={() => { setGranting(null); void refresh(); }} /> : null}
      </Dialog>
    </section>
  );
}
