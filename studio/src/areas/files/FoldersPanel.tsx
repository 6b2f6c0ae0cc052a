// Folders: the service keeps a folder as the name its files share (`folder`), so a folder exists once
// a file is in it. Creating one here names it (it is kept in the list of this page until a file goes
// in); renaming moves every file of the folder to the new name; choosing one browses it.
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Dialog, ErrorNote, Field } from '../../ui/parts.tsx';
import { formErrors } from '../../ui/errors.ts';
import { renameFolder } from './api.ts';

export type FolderChoice = { kind: 'all' } | { kind: 'none' } | { kind: 'folder'; name: string };

export function FoldersPanel({
  folders,
  choice,
  onChoose,
  onCreate,
  onRenamed,
  canUpdate,
}: {
  folders: string[];
  choice: FolderChoice;
  onChoose(choice: FolderChoice): void;
  onCreate(name: string): void;
  onRenamed(from: string, to: string): void;
  canUpdate: boolean;
}) {
  const client = useClient();
  const [creating, setCreating] = useState(false);
  const [newName, setNewName] = useState('');
  const [createError, setCreateError] = useState<string | undefined>();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [renameTo, setRenameTo] = useState('');
  const [renameError, setRenameError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  function create(event: FormEvent) {
    event.preventDefault();
    const name = newName.trim();
    if (!name) return setCreateError('A folder needs a name');
    if (name.length > 500) return setCreateError('A folder name is at most 500 characters');
    if (folders.includes(name)) return setCreateError(`There is a folder "${name}" already`);
    onCreate(name);
    setCreating(false);
    setNewName('');
    setCreateError(undefined);
  }

  async function rename(event: FormEvent) {
    event.preventDefault();
    if (renaming === null) return;
    const to = renameTo.trim();
    if (!to) return setRenameError(new Error('A folder needs a name'));
    setBusy(true);
    setRenameError(null);
    try {
      await renameFolder(client, renaming, to);
      onRenamed(renaming, to);
      setRenaming(null);
    } catch (caught) {
      setRenameError(caught);
    } finally {
      setBusy(false);
    }
  }

  const current = (entry: FolderChoice) =>
    entry.kind === choice.kind && (entry.kind !== 'folder' || (choice.kind === 'folder' && choice.name === entry.name)) ? ('page' as const) : undefined;
  const renameFieldError = formErrors(renameError).fields.folder;

  return (
    <nav aria-label="Folders" className="card stack">
      <h2>Folders</h2>
      <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        <li>
          <button type="button" aria-current={current({ kind: 'all' })} onClick={() => onChoose({ kind: 'all' })}>All files</button>
        </li>
        <li>
          <button type="button" aria-current={current({ kind: 'none' })} onClick={() => onChoose({ kind: 'none' })}>No folder</button>
        </li>
        {folders.map((name) => (
          <li key={name} className="row">
            <button type="button" aria-current={current({ kind: 'folder', name })} onClick={() => onChoose({ kind: 'folder', name })}>
              {name}
            </button>
            {canUpdate ? (
              <button
                type="button"
                aria-label={`Rename folder ${name}`}
                onClick={() => {
                  setRenaming(name);
                  setRenameTo(name);
                  setRenameError(null);
                }}
              >
                Rename
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {creating ? (
        <form onSubmit={create} className="stack">
          <Field label="New folder name" error={createError}>
            {(id, describedBy) => <input id={id} value={newName} onChange={(event) => setNewName(event.target.value)} aria-describedby={describedBy} autoFocus />}
          </Field>
          <div className="row">
            <button type="submit" className="primary">Create folder</button>
            <button type="button" onClick={() => setCreating(false)}>Cancel</button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setCreating(true)}>New folder</button>
      )}
      <Dialog open={renaming !== null} onOpenChange={(open) => (open ? null : setRenaming(null))} title={`Rename folder ${renaming ?? ''}`}>
        <form onSubmit={(event) => void rename(event)} className="stack">
          <Field label="Folder name" error={renameFieldError}>
            {(id, describedBy) => <input id={id} value={renameTo} onChange={(event) => setRenameTo(event.target.value)} aria-describedby={describedBy} />}
          </Field>
          {renameFieldError ? null : <ErrorNote error={renameError} />}
          <button type="submit" className="primary" disabled={busy}>{busy ? 'Renaming…' : 'Rename'}</button>
        </form>
      </Dialog>
    </nav>
  );
}
