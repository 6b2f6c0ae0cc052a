// The user's own account: who they are, the save-after-editing preference, and their sessions (each
// device signed in), any of which they can revoke.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useSession } from '../../session.tsx';
import { errorText } from '../../ui/errors.ts';

interface SessionRow {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  current: boolean;
  impersonated: boolean;
}

export function AccountPage() {
  const { client, user, signOut } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const sessions = useQuery({
    queryKey: ['me', 'sessions'],
    queryFn: async () => (await client.api.GET('/api/v1/me/sessions')).data!.data as SessionRow[],
  });
  const preferences = useQuery({
    queryKey: ['me', 'preferences'],
    queryFn: async () => (await client.api.GET('/api/v1/me/preferences')).data!.data as Record<string, unknown>,
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/me/sessions/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me', 'sessions'] }),
  });
  const revokeAll = useMutation({
    mutationFn: async () => client.api.DELETE('/api/v1/me/sessions'),
    onSuccess: () => void signOut().then(() => navigate({ to: '/signin' })),
  });
  const saveAction = useMutation({
    mutationFn: async (value: string) =>
      (await client.api.PATCH('/api/v1/me/preferences', { body: { saveAction: value === '' ? null : (value as 'stay') } })).data!.data,
    onSuccess: (data) => queryClient.setQueryData(['me', 'preferences'], data),
  });

  return (
    <section className="stack">
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{user?.email}</strong>
        {user?.firstName ? ` (${user.firstName} ${user.lastName ?? ''})` : ''}
      </p>
      <div className="field">
        <label htmlFor="save-action">After saving an item</label>
        <select
          id="save-action"
          value={typeof preferences.data?.saveAction === 'string' ? preferences.data.saveAction : ''}
          onChange={(event) => saveAction.mutate(event.target.value)}
        >
          <option value="">The site's default</option>
          <option value="stay">Stay on the item</option>
          <option value="return">Return to the list</option>
          <option value="create_new">Start a new item</option>
        </select>
      </div>
      <h2>Sessions</h2>
      {sessions.error ? <p role="alert" className="alert">{errorText(sessions.error)}</p> : null}
      {revoke.error ? <p role="alert" className="alert">{errorText(revoke.error)}</p> : null}
      <table className="data" aria-label="Sessions">
        <thead>
          <tr><th>Device</th><th>Address</th><th>Signed in</th><th>Last used</th><th><span className="sr-only">Actions</span></th></tr>
        </thead>
        <tbody>
          {(sessions.data ?? []).map((session) => (
            <tr key={session.id}>
              <td>
                {session.userAgent ?? 'Unknown device'} {session.current ? <span className="badge">this browser</span> : null}
                {session.impersonated ? <span className="badge">impersonated</span> : null}
              </td>
              <td>{session.ip ?? '—'}</td>
              <td>{new Date(session.createdAt).toLocaleString()}</td>
              <td>{new Date(session.lastUsedAt).toLocaleString()}</td>
              <td>
                {session.current ? null : (
                  <button type="button" onClick={() => revoke.mutate(session.id)} aria-label={`Revoke session from ${session.userAgent ?? 'unknown device'}`}>Revoke</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" className="danger" onClick={() => revokeAll.mutate()}>Sign out everywhere</button>
      </div>
    </section>
  );
}
