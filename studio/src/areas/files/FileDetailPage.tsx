// A file's detail: its record, its title and folder edited, tags added and removed, the image with its
// transforms previewed, and the file deleted.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Dialog, ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { formErrors } from '../../ui/errors.ts';
import { deleteFile, formatBytes, getFile, listFolders, updateFile, type FileRecord } from './api.ts';
import { useMediaRights } from './capabilities.ts';
import { TransformPreview } from './TransformPreview.tsx';

const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff', 'image/apng']);

export function FileDetailPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const client = useClient();
  const rights = useMediaRights();
  const file = useQuery({ queryKey: ['files', 'one', id], queryFn: () => getFile(client, id) });

  if (!file.data) {
    return (
      <section className="stack">
        <h1>File</h1>
        <QueryState query={file} />
        <Link to="/files">Back to the files</Link>
      </section>
    );
  }
  return <FileDetail file={file.data} canUpdate={rights.update} canDelete={rights.remove} canCreatePreset={rights.admin} />;
}

function FileDetail({ file, canUpdate, canDelete, canCreatePreset }: { file: FileRecord; canUpdate: boolean; canDelete: boolean; canCreatePreset: boolean }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [title, setTitle] = useState(file.title ?? '');
  const [folder, setFolder] = useState(file.folder ?? '');
  const [newTag, setNewTag] = useState('');
  const [confirming, setConfirming] = useState(false);
  const folders = useQuery({ queryKey: ['files', 'folders'], queryFn: () => listFolders(client) });

  const update = useMutation({
    mutationFn: (body: { title?: string | null; tags?: string[]; folder?: string | null }) => updateFile(client, file.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(['files', 'one', file.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['files', 'list'] });
      void queryClient.invalidateQueries({ queryKey: ['files', 'folders'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteFile(client, file.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['files'] });
      void navigate({ to: '/files' });
    },
  });

  function save(event: FormEvent) {
    event.preventDefault();
    update.mutate({ title: title.trim() === '' ? null : title.trim(), folder: folder.trim() === '' ? null : folder.trim() });
  }
  function addTag(event: FormEvent) {
    event.preventDefault();
    const tag = newTag.trim();
    if (!tag || file.tags.includes(tag)) return;
    update.mutate({ tags: [...file.tags, tag] }, { onSuccess: () => setNewTag('') });
  }

  const errors = formErrors(update.error);
  const tagError = Object.entries(errors.fields).find(([name]) => name === 'tags')?.[1];

  return (
    <section className="stack">
      <PageHeader
        title={file.title ?? file.filename}
        actions={
          <>
            <Link to="/files">Back to the files</Link>
            {canDelete ? (
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                Delete file
              </button>
            ) : null}
          </>
        }
      >
        <p className="muted">
          {file.filename} · {file.type} · {formatBytes(file.size)}
          {file.width && file.height ? ` · ${file.width} × ${file.height}` : ''} · uploaded {new Date(file.createdAt).toLocaleString()}
        </p>
      </PageHeader>
      <ErrorNote error={remove.error} />
      <div className="row" style={{ alignItems: 'start', flexWrap: 'wrap' }}>
        <form className="card stack" onSubmit={save} aria-label="File details" noValidate>
          <h2>Details</h2>
          <Field label="Title" error={errors.fields.title}>
            {(id, describedBy) => <input id={id} value={title} onChange={(event) => setTitle(event.target.value)} aria-describedby={describedBy} readOnly={!canUpdate} />}
          </Field>
          <Field label="Folder" error={errors.fields.folder} hint="Empty for no folder">
            {(id, describedBy) => (
              <>
                <input id={id} value={folder} list="file-folders" onChange={(event) => setFolder(event.target.value)} aria-describedby={describedBy} readOnly={!canUpdate} />
                <datalist id="file-folders">
                  {(folders.data ?? []).map((name) => (
                    <option key={name} value={name} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          {canUpdate ? (
            <button type="submit" className="primary" disabled={update.isPending}>
              Save details
            </button>
          ) : null}
          {update.isSuccess ? <p role="status" className="ok">Saved</p> : null}
          {errors.general.map((message) => (
            <p role="alert" className="alert" key={message}>
              {message}
            </p>
          ))}
        </form>
        <div className="card stack">
          <h2>Tags</h2>
          <ul className="row" aria-label="Tags" style={{ listStyle: 'none', padding: 0, margin: 0, flexWrap: 'wrap' }}>
            {file.tags.length === 0 ? <li className="muted">No tags</li> : null}
            {file.tags.map((tag) => (
              <li key={tag} className="badge">
                {tag}{' '}
                {canUpdate ? (
                  <button type="button" aria-label={`Remove tag ${tag}`} disabled={update.isPending} onClick={() => update.mutate({ tags: file.tags.filter((other) => other !== tag) })}>
                    ×
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
          {canUpdate ? (
            <form onSubmit={addTag} className="row" noValidate>
              <Field label="New tag" error={tagError}>
                {(id, describedBy) => <input id={id} value={newTag} onChange={(event) => setNewTag(event.target.value)} aria-describedby={describedBy} />}
              </Field>
              <button type="submit" disabled={update.isPending}>
                Add tag
              </button>
            </form>
          ) : null}
        </div>
      </div>
      {TRANSFORMABLE.has(file.type) ? (
        <TransformPreview file={file} canCreatePreset={canCreatePreset} />
      ) : (
        <p className="muted">Only raster images (JPEG, PNG, WebP, GIF, AVIF, TIFF) have transforms.</p>
      )}
      <Dialog open={confirming} onOpenChange={setConfirming} title={`Delete ${file.filename}?`}>
        <p>The file and its transformed copies are deleted for good.</p>
        <ErrorNote error={remove.error} />
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
          Delete for good
        </button>
      </Dialog>
    </section>
  );
}
