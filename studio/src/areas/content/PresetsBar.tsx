// Saving and loading views (docs/presets.md): the current view saved as the default view of the user
// (anyone), of a role or of everyone (administrators), and as named bookmarks; bookmarks listed and
// loaded. A scope's default view is updated in place when it exists.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { useIsAdmin } from '../../ui/permissions.ts';
import { ErrorNote } from '../../ui/parts.tsx';
import { formErrors } from '../../ui/errors.ts';
import { enc, type Preset, type PresetQuery } from './api.ts';
import { call } from '../../api.ts';

type Scope = 'user' | 'role' | 'global';

export function PresetsBar({ collection, query, sourceScope, onLoad }: { collection: string; query: PresetQuery; sourceScope: Scope | null; onLoad(preset: Preset): void }) {
  const { client, user } = useSession();
  const admin = useIsAdmin();
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<Scope>('user');
  const [roleId, setRoleId] = useState('');
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const roles = useQuery({
    queryKey: ['roles'],
    enabled: admin,
    queryFn: async () => (await call<{ data: { id: string; name: string }[] }>(client, 'GET', '/roles')).body.data,
  });
  const bookmarks = useQuery({
    queryKey: ['presets', 'bookmarks', collection],
    queryFn: async () => (await call<{ data: Preset[] }>(client, 'GET', '/presets/bookmarks', { query: { collection } })).body.data,
  });
  const scopeBody = (chosen: Scope) => (chosen === 'user' ? { userId: user!.id, roleId: null } : chosen === 'role' ? { userId: null, roleId } : { userId: null, roleId: null });

  const saveDefault = useMutation({
    mutationFn: async () => {
      const target = scopeBody(scope);
      const existing = (await call<{ data: Preset[] }>(client, 'GET', '/presets', { query: { collection, limit: 200 } })).body.data.find(
        (preset) => preset.bookmark === null && preset.scope === scope && (scope !== 'user' || preset.userId === user!.id) && (scope !== 'role' || preset.roleId === roleId),
      );
      if (existing) return (await call<{ data: Preset }>(client, 'PATCH', `/presets/${enc(existing.id)}`, { body: { query, layout: 'table' } })).body.data;
      return (await call<{ data: Preset }>(client, 'POST', '/presets', { body: { collection, layout: 'table', query, ...target } })).body.data;
    },
    onSuccess: async (preset) => {
      setMessage(`Saved as ${preset.scope === 'user' ? 'your' : preset.scope === 'role' ? "the role's" : "everyone's"} default view.`);
      await queryClient.invalidateQueries({ queryKey: ['presets'] });
    },
  });
  const saveBookmark = useMutation({
    mutationFn: async () =>
      (await call<{ data: Preset }>(client, 'POST', '/presets', { body: { collection, layout: 'table', query, bookmark: name.trim(), ...scopeBody(scope) } })).body.data,
    onSuccess: async (preset) => {
      setMessage(`Bookmark "${preset.bookmark}" saved.`);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['presets', 'bookmarks', collection] });
    },
  });
  const bookmarkErrors = formErrors(saveBookmark.error);

  return (
    <section className="card content-presets" aria-labelledby="views-heading">
      <h2 id="views-heading">Views</h2>
      <p className="muted">{sourceScope ? <>Showing the <strong>{sourceScope}</strong> default view.</> : 'No saved default view: showing the standard one.'}</p>
      <div className="row">
        <label htmlFor="preset-scope">Save for</label>
        <select id="preset-scope" value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
          <option value="user">Me</option>
          {admin ? <option value="role">A role</option> : null}
          {admin ? <option value="global">Everyone</option> : null}
        </select>
        {scope === 'role' ? (
          <>
            <label htmlFor="preset-role">Role</label>
            <select id="preset-role" value={roleId} onChange={(event) => setRoleId(event.target.value)}>
              <option value="">Choose…</option>
              {(roles.data ?? []).map((role) => <option key={role.id} value={role.id}>{role.name}</option>)}
            </select>
          </>
        ) : null}
        <button type="button" onClick={() => saveDefault.mutate()} disabled={saveDefault.isPending || (scope === 'role' && !roleId)}>Save as default view</button>
      </div>
      <form className="row" onSubmit={(event: FormEvent) => {
        event.preventDefault();
        if (name.trim()) saveBookmark.mutate();
      }}>
        <label htmlFor="bookmark-name">Bookmark name</label>
        <input id="bookmark-name" value={name} onChange={(event) => setName(event.target.value)} aria-describedby={bookmarkErrors.fields.bookmark ? 'bookmark-error' : undefined} />
        <button type="submit" disabled={!name.trim() || saveBookmark.isPending || (scope === 'role' && !roleId)}>Save bookmark</button>
        {bookmarkErrors.fields.bookmark ? <span id="bookmark-error" className="field-error" role="alert">{bookmarkErrors.fields.bookmark}</span> : null}
      </form>
      {message ? <p className="ok" role="status">{message}</p> : null}
      <ErrorNote error={saveDefault.error ?? (bookmarkErrors.fields.bookmark ? null : saveBookmark.error) ?? bookmarks.error} />
      {(bookmarks.data ?? []).length > 0 ? (
        <div>
          <h3>Bookmarks</h3>
          <ul className="content-bookmarks" aria-label="Bookmarks">
            {(bookmarks.data ?? []).map((preset) => (
              <li key={preset.id}>
                <button type="button" onClick={() => onLoad(preset)}>Load {preset.bookmark}</button> <span className="badge">{preset.sourceScope ?? preset.scope}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
