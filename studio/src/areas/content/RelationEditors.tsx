// Editors of fields that point elsewhere: an m2o picker (search the related collection, pick one item),
// an o2m list (the related items, each a link), and a files picker (upload through POST /files as a
// multipart form, pick an uploaded file, an image shown through /assets as a blob URL, which the CSP's
// `img-src blob:` allows while the request itself carries the token).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote } from '../../ui/parts.tsx';
import { enc, getFields, itemLabel, type FieldInfo, type Item } from './api.ts';
import { call } from '../../api.ts';
import type { EditorProps } from './TextEditors.tsx';

function searchFilter(fields: FieldInfo[], q: string): Record<string, unknown> | undefined {
  const texts = fields.filter((field) => field.type === 'string' && !field.options?.translatable).map((field) => field.field);
  if (!q.trim()) return undefined;
  const terms: Record<string, unknown>[] = texts.map((name) => ({ [name]: { _icontains: q.trim() } }));
  terms.push({ id: { _eq: q.trim() } });
  return { _or: terms };
}

export function M2OPicker({ id, describedBy, value, onChange, label, related }: EditorProps & { related: string }) {
  const client = useClient();
  const [q, setQ] = useState('');
  const fields = useQuery({ queryKey: ['fields', related], queryFn: () => getFields(client, related) });
  const selectedId = typeof value === 'string' && value ? value : null;
  const selected = useQuery({
    queryKey: ['items', related, 'one', selectedId],
    enabled: selectedId !== null,
    queryFn: async () => (await call<{ data: Item }>(client, 'GET', `/items/${enc(related)}/${enc(selectedId!)}`)).body.data,
  });
  const filter = fields.data ? searchFilter(fields.data, q) : undefined;
  const options = useQuery({
    queryKey: ['items', related, 'pick', JSON.stringify(filter ?? null)],
    enabled: fields.data !== undefined,
    queryFn: async () =>
      (await call<{ data: Item[] }>(client, 'GET', `/items/${enc(related)}`, { query: { limit: 10, meta: 'none', ...(filter ? { filter: JSON.stringify(filter) } : {}) } })).body.data,
  });
  return (
    <div className="content-picker card" aria-describedby={describedBy}>
      <p>
        {selectedId ? (
          <>
            Selected: <strong>{selected.data ? itemLabel(selected.data, fields.data) : selectedId}</strong>{' '}
            <button type="button" onClick={() => onChange(null)} aria-label={`Clear ${label}`}>Clear</button>
          </>
        ) : (
          <span className="muted">Nothing selected</span>
        )}
      </p>
      <input id={id} type="search" placeholder={`Search ${related}…`} value={q} onChange={(event) => setQ(event.target.value)} />
      <ErrorNote error={options.error ?? fields.error} />
      <ul className="content-options" aria-label={`${label}: ${related} to choose from`}>
        {(options.data ?? []).map((item) => (
          <li key={item.id}>
            <button type="button" aria-pressed={item.id === selectedId} onClick={() => onChange(item.id)}>
              Select {itemLabel(item, fields.data)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The items of `related` whose `relatedField` holds this item's id. */
export function O2MList({ itemId, related, relatedField, label }: { itemId: string; related: string; relatedField: string; label: string }) {
  const client = useClient();
  const fields = useQuery({ queryKey: ['fields', related], queryFn: () => getFields(client, related) });
  const items = useQuery({
    queryKey: ['items', related, 'o2m', relatedField, itemId],
    queryFn: async () =>
      (await call<{ data: Item[]; meta: { total?: number } }>(client, 'GET', `/items/${enc(related)}`, {
        query: { limit: 50, filter: JSON.stringify({ [relatedField]: { _eq: itemId } }) },
      })).body,
  });
  return (
    <section className="card" aria-label={label}>
      <h3>{label}</h3>
      <ErrorNote error={items.error} />
      {items.data && items.data.data.length === 0 ? <p className="muted">No {related} point here.</p> : null}
      <ul>
        {(items.data?.data ?? []).map((item) => (
          <li key={item.id}>
            <Link to="/collections/$collection/$id" params={{ collection: related, id: item.id }}>{itemLabel(item, fields.data)}</Link>
          </li>
        ))}
      </ul>
      {items.data?.meta?.total !== undefined && items.data.meta.total > items.data.data.length ? <p className="muted">{items.data.meta.total} in all</p> : null}
    </section>
  );
}

interface FileRecord {
  id: string;
  filename: string;
  title: string | null;
  type: string;
  size: number;
}

/** An image file's preview: the asset fetched with the session's token, shown from a blob URL. */
export function FilePreview({ file }: { file: FileRecord }) {
  const client = useClient();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const image = file.type.startsWith('image/') && file.type !== 'image/svg+xml';
  useEffect(() => {
    if (!image) return;
    let revoked = false;
    let objectUrl: string | null = null;
    client
      .fetch(new Request(`${client.baseUrl}/api/v1/assets/${enc(file.id)}?width=320`))
      .then(async (response) => {
        const blob = await response.blob();
        if (revoked) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => setFailed(true));
    return () => {
      revoked = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [client, file.id, image]);
  if (!image) return <span className="badge">{file.type}</span>;
  if (failed) return <span className="bad">Preview unavailable</span>;
  return url ? <img src={url} alt={`Preview of ${file.title ?? file.filename}`} /> : <span className="muted">Loading preview…</span>;
}

export function FilesPicker({ id, describedBy, value, onChange, label }: EditorProps) {
  const client = useClient();
  const queryClient = useQueryClient();
  const ids = Array.isArray(value) ? (value as string[]) : [];
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const attached = useQuery({
    queryKey: ['files', 'by-id', ids.join(',')],
    enabled: ids.length > 0,
    queryFn: async () => Promise.all(ids.map(async (fileId) => (await call<{ data: FileRecord }>(client, 'GET', `/files/${enc(fileId)}`)).body.data)),
  });
  const recent = useQuery({
    queryKey: ['files', 'recent'],
    queryFn: async () => (await call<{ data: FileRecord[] }>(client, 'GET', '/files', { query: { limit: 20 } })).body.data,
  });
  const upload = async (file: File) => {
    setUploading(true);
    setError(null);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const created = (await call<{ data: FileRecord }>(client, 'POST', '/files', { body: form })).body.data;
      await queryClient.invalidateQueries({ queryKey: ['files'] });
      onChange([...ids, created.id]);
    } catch (failure) {
      setError(failure);
    } finally {
      setUploading(false);
    }
  };
  return (
    <div className="content-picker card" aria-describedby={describedBy}>
      <ul className="content-files" aria-label={`${label}: attached files`}>
        {(attached.data ?? []).map((file) => (
          <li key={file.id} className="preview">
            <FilePreview file={file} />
            <span>{file.title ?? file.filename}</span>
            <button type="button" onClick={() => onChange(ids.filter((other) => other !== file.id))} aria-label={`Remove ${file.filename}`}>Remove</button>
          </li>
        ))}
      </ul>
      {ids.length === 0 ? <p className="muted">No file attached.</p> : null}
      <div className="row">
        <label htmlFor={`${id}-upload`}>Upload a file</label>
        <input id={`${id}-upload`} type="file" disabled={uploading} onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) void upload(file);
          event.target.value = '';
        }} />
        {uploading ? <span role="status">Uploading…</span> : null}
      </div>
      <div className="row">
        <label htmlFor={id}>Or attach an uploaded file</label>
        <select id={id} value="" onChange={(event) => event.target.value && onChange([...ids, event.target.value])}>
          <option value="">Choose…</option>
          {(recent.data ?? []).filter((file) => !ids.includes(file.id)).map((file) => (
            <option key={file.id} value={file.id}>{file.title ?? file.filename}</option>
          ))}
        </select>
      </div>
      <ErrorNote error={error ?? attached.error} />
    </div>
  );
}
