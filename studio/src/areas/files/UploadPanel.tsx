// Uploading a file: by a multipart form (`POST /files`) or by the presigned flow (a signed URL, the
// bytes PUT to it, then the registration), with its progress in a <progress> element and any refusal
// (a type the policy refuses, a file over its size) shown with the service's message.
import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Field } from '../../ui/parts.tsx';
import { errorText, formErrors } from '../../ui/errors.ts';
import { formatBytes, parseTags, uploadMultipart, uploadPresigned, type FileRecord } from './api.ts';

type Method = 'multipart' | 'presigned';

export function UploadPanel({ folders, defaultFolder, onUploaded }: { folders: string[]; defaultFolder: string; onUploaded(file: FileRecord): void }) {
  const client = useClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const progressId = useId();
  const [method, setMethod] = useState<Method>('multipart');
  const [title, setTitle] = useState('');
  const [folder, setFolder] = useState(defaultFolder);
  const [tags, setTags] = useState('');
  const [progress, setProgress] = useState<{ loaded: number; total: number } | null>(null);
  const [state, setState] = useState<'idle' | 'uploading' | 'done' | 'failed'>('idle');
  const [error, setError] = useState<unknown>(null);
  const [uploaded, setUploaded] = useState<FileRecord | null>(null);
  const policy = useQuery({
    queryKey: ['uploads', 'config'],
    queryFn: async () => (await client.api.GET('/api/v1/uploads/config')).data as unknown as { data: { maxBytes: number; allowedMimeTypes: string[] } },
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const file = inputRef.current?.files?.[0];
    if (!file) {
      setError(new Error('Choose a file to upload'));
      setState('failed');
      return;
    }
    setError(null);
    setUploaded(null);
    setState('uploading');
    setProgress({ loaded: 0, total: file.size });
    const fields = { title: title.trim() || undefined, folder: folder.trim() || undefined, tags: parseTags(tags) };
    const report = (loaded: number, total: number) => setProgress({ loaded, total });
    try {
      const record = method === 'multipart' ? await uploadMultipart(client, file, fields, report) : await uploadPresigned(client, file, fields, report);
      setProgress({ loaded: file.size, total: file.size });
      setState('done');
      setUploaded(record);
      setTitle('');
      setTags('');
      if (inputRef.current) inputRef.current.value = '';
      onUploaded(record);
    } catch (caught) {
      setState('failed');
      setError(caught);
    }
  }

  const errors = formErrors(error);
  const fileError = errors.fields.file ?? errors.fields.size ?? errors.fields.type ?? errors.fields.filename;
  const general = error && !fileError && !errors.fields.title && !errors.fields.folder && !errors.fields.tags ? errorText(error) : null;
  const folderListId = `${progressId}-folders`;

  return (
    <section className="card stack" aria-labelledby={`${progressId}-heading`}>
      <h2 id={`${progressId}-heading`}>Upload a file</h2>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset className="row">
          <legend>Upload method</legend>
          <label>
            <input type="radio" name="upload-method" value="multipart" checked={method === 'multipart'} onChange={() => setMethod('multipart')} /> Form upload (multipart)
          </label>
          <label>
            <input type="radio" name="upload-method" value="presigned" checked={method === 'presigned'} onChange={() => setMethod('presigned')} /> Signed URL (presigned)
          </label>
        </fieldset>
        <Field label="File" error={fileError} hint={policy.data ? `Up to ${formatBytes(policy.data.data.maxBytes)}` : undefined}>
          {(id, describedBy) => <input id={id} ref={inputRef} type="file" aria-describedby={describedBy} aria-invalid={fileError ? true : undefined} />}
        </Field>
        <div className="row" style={{ alignItems: 'flex-start' }}>
          <Field label="Title" error={errors.fields.title}>
            {(id, describedBy) => <input id={id} value={title} onChange={(event) => setTitle(event.target.value)} aria-describedby={describedBy} />}
          </Field>
          <Field label="Folder" error={errors.fields.folder} hint="Empty for no folder">
            {(id, describedBy) => (
              <>
                <input id={id} value={folder} list={folderListId} onChange={(event) => setFolder(event.target.value)} aria-describedby={describedBy} />
                <datalist id={folderListId}>
                  {folders.map((name) => (
                    <option key={name} value={name} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Tags" error={errors.fields.tags} hint="Separated by commas">
            {(id, describedBy) => <input id={id} value={tags} onChange={(event) => setTags(event.target.value)} aria-describedby={describedBy} />}
          </Field>
        </div>
        <div className="row">
          <button type="submit" className="primary" disabled={state === 'uploading'}>
            {state === 'uploading' ? 'Uploading…' : 'Upload'}
          </button>
          {progress ? (
            <>
              <label htmlFor={progressId}>Upload progress</label>
              <progress id={progressId} max={progress.total || 1} value={progress.loaded} data-state={state} />
              <span role="status">
                {state === 'done'
                  ? `Uploaded ${uploaded?.filename ?? ''}`
                  : state === 'failed'
                    ? 'Upload failed'
                    : `${Math.round((progress.loaded / (progress.total || 1)) * 100)}%`}
              </span>
            </>
          ) : null}
        </div>
        {general ? (
          <p role="alert" className="alert">
            {general}
          </p>
        ) : null}
      </form>
    </section>
  );
}
