// One named version: edit its name and data, compare it with main, promote it, delete it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { Dialog, ErrorNote, Field } from '../../ui/parts.tsx';
import { itemPath, SYSTEM_FIELDS, type ItemVersion, type Json } from './api.ts';
import { apiJson } from '../../api.ts';
import { Diff, ValuesTable } from './Diff.tsx';

interface Comparison {
  main: Json;
  version: Json;
  changes: Json;
}

function contentOf(data: Json): Json {
  return Object.fromEntries(Object.entries(data).filter(([key]) => !SYSTEM_FIELDS.has(key)));
}

export function VersionDetail({ collection, id, version, onDeleted }: { collection: string; id: string; version: ItemVersion; onDeleted(): void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const base = `${itemPath(collection, id)}/versions/${encodeURIComponent(version.key)}`;
  const [name, setName] = useState(version.name);
  const [text, setText] = useState(() => JSON.stringify(contentOf(version.data), null, 2));
  const [jsonError, setJsonError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [promoted, setPromoted] = useState<{ data: Json; meta: { mainDiverged: boolean; revisionId: string } } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['history', collection, id] });

  const save = useMutation({
    mutationFn: async (body: { name: string; data: Json }) => (await apiJson<{ data: ItemVersion }>(client, 'PATCH', base, body)).data,
    onSuccess: async () => {
      setSaved(true);
      setComparison(null);
      await refresh();
    },
  });
  const compare = useMutation({
    mutationFn: async () => (await apiJson<{ data: Comparison }>(client, 'GET', `${base}/compare`)).data,
    onSuccess: (answer) => setComparison(answer),
  });
  const promote = useMutation({
    mutationFn: async () => apiJson<{ data: Json; meta: { mainDiverged: boolean; revisionId: string } }>(client, 'POST', `${base}/promote`),
    onSuccess: async (answer) => {
      setPromoted(answer);
      setComparison(null);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async () => apiJson<void>(client, 'DELETE', base),
    onSuccess: async () => {
      setConfirmDelete(false);
      onDeleted();
      await refresh();
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (caught) {
      setJsonError(`Not valid JSON: ${caught instanceof Error ? caught.message : String(caught)}`);
      return;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      setJsonError('The data must be a JSON object of fields and values.');
      return;
    }
    setJsonError(undefined);
    save.mutate({ name: name.trim(), data: data as Json });
  }

  return (
    <div className="card stack" aria-labelledby="version-heading">
      <h3 id="version-heading">Version “{version.name}” <code>{version.key}</code></h3>
      <form className="stack" onSubmit={submit}>
        <Field label="Version name" error={errors.fields.name}>
          {(fieldId, describedBy) => <input id={fieldId} aria-describedby={describedBy} value={name} onChange={(event) => { setSaved(false); setName(event.target.value); }} />}
        </Field>
        <Field label="Version data (JSON)" error={jsonError ?? errors.fields.data} hint="The fields this version holds and their values; the item itself is not changed.">
          {(fieldId, describedBy) => (
            <textarea id={fieldId} aria-describedby={describedBy} rows={Math.min(16, text.split('\n').length + 1)} value={text} onChange={(event) => { setSaved(false); setText(event.target.value); }} spellCheck={false} />
          )}
        </Field>
        {errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>)}
        {saved ? <p role="status" className="notice">Version saved.</p> : null}
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending}>Save version</button>
          <button type="button" onClick={() => compare.mutate()} disabled={compare.isPending}>Compare with main</button>
          <button type="button" onClick={() => promote.mutate()} disabled={promote.isPending}>Promote to main</button>
          <button type="button" className="danger" onClick={() => { remove.reset(); setConfirmDelete(true); }}>Delete version</button>
        </div>
      </form>
      <ErrorNote error={compare.error} />
      <ErrorNote error={promote.error} />
      {comparison ? (
        <section className="stack" aria-labelledby="compare-heading">
          <h4 id="compare-heading">Main compared with version {version.key}</h4>
          {comparison.version.mainChanged === true ? <p className="notice">Main has changed since this version was based on it.</p> : null}
          <Diff label={`Main against version ${version.key}`} before={comparison.main} after={comparison.version} beforeLabel="Main" afterLabel={`Version ${version.key}`} only={Object.keys(comparison.changes)} />
        </section>
      ) : null}
      {promoted ? (
        <section className="stack" aria-labelledby="promoted-heading">
          <h4 id="promoted-heading">Promoted to main</h4>
          <p role="status" className="notice">
            Main now holds the version’s changes (revision <code>{promoted.meta.revisionId}</code>).
            {promoted.meta.mainDiverged ? ' Main had changed since the version was made: its other edits were kept.' : ''}
          </p>
          <ValuesTable label="The item after the promotion" values={promoted.data} />
        </section>
      ) : null}
      <Dialog open={confirmDelete} onOpenChange={setConfirmDelete} title={`Delete version ${version.key}?`}>
        <p>The version and its edits are deleted; the item is not changed.</p>
        <ErrorNote error={remove.error} />
        <div className="row">
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>Delete</button>
        </div>
      </Dialog>
    </div>
  );
}
