// An image's transforms previewed: a preset of the site (administrators can create one from the
// parameters chosen) and ad-hoc parameters (docs/files.md "Transforms": width, height, fit, format,
// quality), rendered by `GET /assets/:id?…` and shown as an object URL (assets need the bearer). A bad
// parameter is shown at its field, with the service's message.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SvcError } from '@svc-cms/sdk';
import { useEffect, useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote, Field } from '../../ui/parts.tsx';
import { formErrors } from '../../ui/errors.ts';
import { assetObjectUrl, createPreset, listPresets, type FileRecord } from './api.ts';

interface Params {
  preset: string;
  width: string;
  height: string;
  fit: string;
  format: string;
  quality: string;
}

const EMPTY: Params = { preset: '', width: '', height: '', fit: '', format: '', quality: '' };
const NUMERIC = new Set(['width', 'height', 'quality']);

/** The query string's parameters: the ones given. */
function queryOf(params: Params): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value.trim() !== '').map(([name, value]) => [name, value.trim()]));
}

/** A preset's dsl from the ad-hoc parameters (numbers as numbers). */
function dslOf(params: Params): Record<string, unknown> {
  const entries = Object.entries(queryOf(params)).filter(([name]) => name !== 'preset');
  return Object.fromEntries(entries.map(([name, value]) => [name, NUMERIC.has(name) ? Number(value) : value]));
}

/** Where a query error points: `['query', 'width']` → width. */
function queryFieldErrors(error: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!(error instanceof SvcError)) return fields;
  for (const entry of error.errors) {
    const [where, name] = entry.path.map(String);
    if (where === 'query' && name && fields[name] === undefined) fields[name] = entry.message;
  }
  return fields;
}

export function TransformPreview({ file, canCreatePreset }: { file: FileRecord; canCreatePreset: boolean }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Params>(EMPTY);
  const [applied, setApplied] = useState<Params | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [presetKey, setPresetKey] = useState('');
  const [presetName, setPresetName] = useState('');
  const presets = useQuery({ queryKey: ['transform-presets'], queryFn: () => listPresets(client) });
  const original = useObjectUrl(['files', 'asset', file.id, file.updatedAt], () => assetObjectUrl(client, file.id, {}));
  const preview = useObjectUrl(applied ? ['files', 'asset', file.id, file.updatedAt, queryOf(applied)] : null, () => assetObjectUrl(client, file.id, queryOf(applied ?? EMPTY)));
  const addPreset = useMutation({
    mutationFn: () => createPreset(client, { key: presetKey.trim(), name: presetName.trim(), dsl: dslOf(draft) }),
    onSuccess: (preset) => {
      void queryClient.invalidateQueries({ queryKey: ['transform-presets'] });
      setPresetKey('');
      setPresetName('');
      setDraft({ ...EMPTY, preset: preset.key });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSize(null);
    setApplied({ ...draft });
  }

  const fieldErrors = queryFieldErrors(preview.error);
  const set = (name: keyof Params) => (event: { target: { value: string } }) => setDraft((current) => ({ ...current, [name]: event.target.value }));
  const presetErrors = formErrors(addPreset.error);

  return (
    <section className="stack" aria-labelledby="transform-heading">
      <h2 id="transform-heading">Image and transforms</h2>
      <div className="row" style={{ alignItems: 'start', flexWrap: 'wrap' }}>
        <figure className="card">
          {original.url ? <img src={original.url} alt={`Original of ${file.filename}`} style={{ maxWidth: '20rem', height: 'auto' }} /> : null}
          {original.error ? <ErrorNote error={original.error} /> : null}
          <figcaption className="muted">
            Original{file.width && file.height ? `, ${file.width} × ${file.height}` : ''}
          </figcaption>
        </figure>
        <form className="card stack" onSubmit={submit} noValidate aria-label="Transform parameters">
          <Field label="Preset" error={fieldErrors.preset}>
            {(id, describedBy) => (
              <select id={id} value={draft.preset} onChange={set('preset')} aria-describedby={describedBy}>
                <option value="">No preset</option>
                {(presets.data ?? []).map((preset) => (
                  <option key={preset.id} value={preset.key}>
                    {preset.name} ({preset.key})
                  </option>
                ))}
              </select>
            )}
          </Field>
          {presets.error ? <ErrorNote error={presets.error} /> : null}
          <div className="row" style={{ alignItems: 'flex-start' }}>
            <Field label="Width" error={fieldErrors.width}>
              {(id, describedBy) => <input id={id} type="number" inputMode="numeric" value={draft.width} onChange={set('width')} aria-describedby={describedBy} style={{ width: '7rem' }} />}
            </Field>
            <Field label="Height" error={fieldErrors.height}>
              {(id, describedBy) => <input id={id} type="number" inputMode="numeric" value={draft.height} onChange={set('height')} aria-describedby={describedBy} style={{ width: '7rem' }} />}
            </Field>
            <Field label="Quality" error={fieldErrors.quality} hint="1–100">
              {(id, describedBy) => <input id={id} type="number" inputMode="numeric" value={draft.quality} onChange={set('quality')} aria-describedby={describedBy} style={{ width: '6rem' }} />}
            </Field>
          </div>
          <div className="row" style={{ alignItems: 'flex-start' }}>
            <Field label="Fit" error={fieldErrors.fit}>
              {(id, describedBy) => (
                <select id={id} value={draft.fit} onChange={set('fit')} aria-describedby={describedBy}>
                  <option value="">Default</option>
                  {['cover', 'contain', 'inside', 'outside', 'fill'].map((fit) => (
                    <option key={fit} value={fit}>{fit}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Format" error={fieldErrors.format}>
              {(id, describedBy) => (
                <select id={id} value={draft.format} onChange={set('format')} aria-describedby={describedBy}>
                  <option value="">The original's</option>
                  {['jpeg', 'png', 'webp', 'avif'].map((format) => (
                    <option key={format} value={format}>{format}</option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <button type="submit" className="primary">Preview</button>
          {preview.error && Object.keys(fieldErrors).length === 0 ? <ErrorNote error={preview.error} /> : null}
        </form>
        <figure className="card" aria-live="polite">
          {preview.loading ? <p role="status" className="muted">Rendering…</p> : null}
          {preview.url ? (
            <img
              src={preview.url}
              alt={`Transformed ${file.filename}`}
              data-testid="transform-preview"
              onLoad={(event) => setSize({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })}
              style={{ maxWidth: '32rem', height: 'auto' }}
            />
          ) : null}
          <figcaption className="muted">{size ? `Preview, ${size.width} × ${size.height}` : applied ? 'Preview' : 'Choose parameters and preview'}</figcaption>
        </figure>
      </div>
      {canCreatePreset ? (
        <form
          className="card stack"
          aria-label="New preset"
          onSubmit={(event) => {
            event.preventDefault();
            addPreset.mutate();
          }}
          noValidate
        >
          <h3>Save these parameters as a preset</h3>
          <div className="row" style={{ alignItems: 'flex-start' }}>
            <Field label="Preset key" error={presetErrors.fields.key} hint="Lowercase letters and digits, joined by _ or -">
              {(id, describedBy) => <input id={id} value={presetKey} onChange={(event) => setPresetKey(event.target.value)} aria-describedby={describedBy} />}
            </Field>
            <Field label="Preset name" error={presetErrors.fields.name}>
              {(id, describedBy) => <input id={id} value={presetName} onChange={(event) => setPresetName(event.target.value)} aria-describedby={describedBy} />}
            </Field>
          </div>
          {presetErrors.fields.dsl ? <p role="alert" className="alert">{presetErrors.fields.dsl}</p> : null}
          {presetErrors.general.map((message) => (
            <p role="alert" className="alert" key={message}>{message}</p>
          ))}
          <div>
            <button type="submit" disabled={addPreset.isPending}>Create preset</button>
          </div>
          {addPreset.isSuccess ? <p role="status" className="ok">Preset {addPreset.data.key} created</p> : null}
        </form>
      ) : null}
    </section>
  );
}

/** An asset fetched as an object URL for the key given (null: nothing), revoked when replaced or unmounted. */
function useObjectUrl(key: unknown[] | null, load: () => Promise<string>): { url: string | null; error: unknown; loading: boolean } {
  const [state, setState] = useState<{ url: string | null; error: unknown; loading: boolean }>({ url: null, error: null, loading: false });
  const keyText = key ? JSON.stringify(key) : null;
  useEffect(() => {
    if (keyText === null) return;
    let cancelled = false;
    let made: string | null = null;
    setState((current) => ({ ...current, loading: true, error: null }));
    load().then(
      (url) => {
        made = url;
        if (cancelled) URL.revokeObjectURL(url);
        else setState({ url, error: null, loading: false });
      },
      (error: unknown) => {
        if (!cancelled) setState({ url: null, error, loading: false });
      },
    );
    return () => {
      cancelled = true;
      if (made) URL.revokeObjectURL(made);
    };
    // The key names what is loaded; `load` is a new closure each render.
  }, [keyText]);
  return state;
}
