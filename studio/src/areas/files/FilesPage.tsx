// The files library: the site's files newest first, a page at a time, browsed by folder and filtered by
// tag and title; uploads (multipart or presigned, with progress); folders created, renamed, and files
// moved into them.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote, Field, PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { formatBytes, listFiles, listFolders, updateFile, type FileQuery, type FileRecord } from './api.ts';
import { useMediaRights } from './capabilities.ts';
import { FoldersPanel, type FolderChoice } from './FoldersPanel.tsx';
import { UploadPanel } from './UploadPanel.tsx';

const PAGE_SIZE = 25;

export function FilesPage() {
  const client = useClient();
  const queryClient = useQueryClient();
  const rights = useMediaRights();
  const [choice, setChoice] = useState<FolderChoice>({ kind: 'all' });
  const [tag, setTag] = useState('');
  const [title, setTitle] = useState('');
  const [page, setPage] = useState(1);
  // Folders named here that hold no file yet (the service knows a folder by its files).
  const [created, setCreated] = useState<string[]>([]);

  const query: FileQuery = {
    folder: choice.kind === 'all' ? undefined : choice.kind === 'none' ? '' : choice.name,
    tag: tag.trim() || undefined,
    title: title.trim() || undefined,
    page,
    limit: PAGE_SIZE,
  };
  const files = useQuery({ queryKey: ['files', 'list', query], queryFn: () => listFiles(client, query), placeholderData: keepPreviousData });
  const stored = useQuery({ queryKey: ['files', 'folders'], queryFn: () => listFolders(client), enabled: files.isSuccess });
  const folders = [...new Set([...(stored.data ?? []), ...created])].sort((a, b) => a.localeCompare(b));

  const move = useMutation({
    mutationFn: ({ file, folder }: { file: FileRecord; folder: string | null }) => updateFile(client, file.id, { folder }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['files'] }),
  });

  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['files'] });
  const total = files.data?.meta.total ?? 0;
  const choose = (next: FolderChoice) => {
    setChoice(next);
    setPage(1);
  };

  return (
    <section className="stack">
      <PageHeader title="Files">
        <p className="muted">Uploads, their folders and tags, and image transforms.</p>
      </PageHeader>
      <div style={{ display: 'grid', gridTemplateColumns: 'minmax(12rem, 16rem) 1fr', gap: '1rem', alignItems: 'start' }}>
        <FoldersPanel
          folders={folders}
          choice={choice}
          onChoose={choose}
          canUpdate={rights.update}
          onCreate={(name) => {
            setCreated((names) => [...names, name]);
            choose({ kind: 'folder', name });
          }}
          onRenamed={(from, to) => {
            setCreated((names) => names.filter((name) => name !== from));
            if (choice.kind === 'folder' && choice.name === from) choose({ kind: 'folder', name: to });
            refresh();
          }}
        />
        <div className="stack">
          {rights.create ? (
            <UploadPanel key={choice.kind === 'folder' ? choice.name : ''} folders={folders} defaultFolder={choice.kind === 'folder' ? choice.name : ''} onUploaded={refresh} />
          ) : null}
          <h2>{choice.kind === 'all' ? 'All files' : choice.kind === 'none' ? 'Files in no folder' : `Folder ${choice.name}`}</h2>
          <div className="row" role="search" aria-label="Filter files">
            <Field label="Title starts with">
              {(id) => (
                <input
                  id={id}
                  type="search"
                  value={title}
                  onChange={(event) => {
                    setTitle(event.target.value);
                    setPage(1);
                  }}
                />
              )}
            </Field>
            <Field label="Tag">
              {(id) => (
                <input
                  id={id}
                  value={tag}
                  onChange={(event) => {
                    setTag(event.target.value);
                    setPage(1);
                  }}
                />
              )}
            </Field>
          </div>
          <ErrorNote error={move.error} />
          {files.data ? null : <QueryState query={files} />}
          {files.data && files.error ? <ErrorNote error={files.error} /> : null}
          {files.data ? (
            <>
              <table className="data" aria-label="Files">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Type</th>
                    <th>Size</th>
                    <th>Folder</th>
                    <th>Tags</th>
                    <th>Uploaded</th>
                  </tr>
                </thead>
                <tbody>
                  {files.data.data.map((file) => (
                    <tr key={file.id}>
                      <td>
                        <Link to="/files/$id" params={{ id: file.id }}>
                          {file.title ?? file.filename}
                        </Link>
                        {file.title ? <div className="muted">{file.filename}</div> : null}
                      </td>
                      <td>{file.type}</td>
                      <td>{formatBytes(file.size)}</td>
                      <td>
                        {rights.update ? (
                          <select
                            aria-label={`Folder of ${file.filename}`}
                            value={file.folder ?? ''}
                            disabled={move.isPending}
                            onChange={(event) => move.mutate({ file, folder: event.target.value === '' ? null : event.target.value })}
                          >
                            <option value="">No folder</option>
                            {[...new Set([...folders, ...(file.folder ? [file.folder] : [])])].map((name) => (
                              <option key={name} value={name}>
                                {name}
                              </option>
                            ))}
                          </select>
                        ) : (
                          (file.folder ?? '—')
                        )}
                      </td>
                      <td>
                        {file.tags.map((name) => (
                          <button
                            key={name}
                            type="button"
                            className="badge"
                            aria-label={`Filter by tag ${name}`}
                            onClick={() => {
                              setTag(name);
                              setPage(1);
                            }}
                          >
                            {name}
                          </button>
                        ))}
                      </td>
                      <td>{new Date(file.createdAt).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {files.data.data.length === 0 ? <p className="muted">No files here.</p> : null}
              <Pager label="File pages" page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} count={['file', 'files']} previous="Previous page" next="Next page" />
            </>
          ) : null}
        </div>
      </div>
    </section>
  );
}
