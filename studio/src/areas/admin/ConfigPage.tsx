// The config manifest: export the site's (shown and downloadable), and import one (pasted or from a
// file): a dry run first shows the plan's changes, then apply runs it in one transaction.
import { SvcError } from '@svc-cms/sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type ChangeEvent } from 'react';
import { useClient } from '../../session.tsx';
import { errorText } from '../../ui/errors.ts';
import { Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly } from './common.tsx';
import { PlanView, type ImportResult } from './PlanView.tsx';

type Scope = 'all' | 'schema' | 'settings' | 'webhooks';
type Mode = 'merge' | 'replace-managed' | 'replace-all';

export function ConfigPage() {
  return (
    <AdminOnly>
      <Config />
    </AdminOnly>
  );
}

function Config() {
  return (
    <section className="stack">
      <PageHeader title="Config manifest">
        <p className="muted">The site’s schema, settings and webhooks as one JSON document (no content, secrets or access control).</p>
      </PageHeader>
      <Export />
      <Import />
    </section>
  );
}

function Export() {
  const client = useClient();
  const [scope, setScope] = useState<Scope>('all');
  const manifest = useQuery({
    queryKey: ['admin', 'config-export', scope],
    queryFn: async () => (await client.api.GET('/api/v1/config/export', { params: { query: { scope } } })).data!.data as unknown,
  });
  const text = manifest.data === undefined ? '' : JSON.stringify(manifest.data, null, 2);
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `config-${scope}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
  return (
    <section className="card stack" aria-labelledby="config-export">
      <h2 id="config-export">Export</h2>
      <div className="row">
        <Field label="Scope">
          {(id) => (
            <select id={id} value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
              <option value="all">everything</option>
              <option value="schema">schema</option>
              <option value="settings">settings</option>
              <option value="webhooks">webhooks</option>
            </select>
          )}
        </Field>
        <button type="button" onClick={download} disabled={!text}>Download JSON</button>
      </div>
      <QueryState query={manifest} />
      {text ? <pre className="card" aria-label="Exported manifest" tabIndex={0} style={{ maxHeight: '20rem', overflow: 'auto' }}>{text}</pre> : null}
    </section>
  );
}

function Import() {
  const client = useClient();
  const [text, setText] = useState('');
  const [mode, setMode] = useState<Mode>('merge');
  const [allowDestructive, setAllowDestructive] = useState(false);
  const [parseError, setParseError] = useState<string | undefined>();
  const [plan, setPlan] = useState<ImportResult | null>(null);
  const send = useMutation({
    mutationFn: async (dryRun: boolean): Promise<ImportResult> => {
      const query = new URLSearchParams({ mode, ...(dryRun ? { dryRun: 'true' } : {}), ...(allowDestructive ? { allowDestructive: 'true' } : {}) });
      const response = await client.fetch(
        new Request(`${client.baseUrl}/api/v1/config/import?${query.toString()}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text, credentials: 'include' }),
      );
      return ((await response.json()) as { data: ImportResult }).data;
    },
    onSuccess: (result) => setPlan(result),
    onError: (error) => {
      // A refused apply still says what it would have done.
      if (error instanceof SvcError && error.extensions.diff) setPlan({ valid: false, errors: [], diff: error.extensions.diff as ImportResult['diff'] });
    },
  });
  function run(dryRun: boolean) {
    try {
      JSON.parse(text);
    } catch {
      setParseError('The manifest is not valid JSON');
      return;
    }
    setParseError(undefined);
    if (dryRun) setPlan(null);
    send.mutate(dryRun);
  }
  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) {
      setText(await file.text());
      setPlan(null);
    }
  }
  const dryRunDone = plan !== null && plan.applied === undefined && send.variables === true;
  return (
    <section className="card stack" aria-labelledby="config-import">
      <h2 id="config-import">Import</h2>
      <Field label="Manifest file">
        {(id) => <input id={id} type="file" accept="application/json,.json" onChange={(event) => void upload(event)} />}
      </Field>
      <Field label="Manifest (JSON)" error={parseError}>
        {(id, describedBy) => (
          <textarea
            id={id}
            aria-describedby={describedBy}
            rows={10}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
              setPlan(null);
            }}
          />
        )}
      </Field>
      <Field label="Mode" hint="merge: create and update only; replace-managed: also delete within the manifest's managed scopes; replace-all: delete anything absent">
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={mode} onChange={(event) => { setMode(event.target.value as Mode); setPlan(null); }}>
            <option value="merge">merge</option>
            <option value="replace-managed">replace-managed</option>
            <option value="replace-all">replace-all</option>
          </select>
        )}
      </Field>
      <label className="row">
        <input type="checkbox" checked={allowDestructive} onChange={(event) => setAllowDestructive(event.target.checked)} /> Allow destructive changes
      </label>
      <div className="row">
        <button type="button" onClick={() => run(true)} disabled={!text.trim() || send.isPending}>Dry run</button>
        <button type="button" className="primary" onClick={() => run(false)} disabled={!dryRunDone || send.isPending || plan?.valid === false}>Apply</button>
      </div>
      {send.error ? <p role="alert" className="alert">{errorText(send.error)}</p> : null}
      {plan ? <PlanView result={plan} /> : null}
    </section>
  );
}
