// A user's active sessions (devices signed in), each revocable by the administrator.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { ErrorNote, QueryState } from '../../ui/parts.tsx';
import type { User } from './common.tsx';

interface SessionRow {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  current?: boolean;
}

export function UserSessions({ user }: { user: User }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['admin', 'user-sessions', user.id],
    queryFn: async () => (await client.api.GET('/api/v1/users/{id}/sessions', { params: { path: { id: user.id } } })).data!.data as unknown as SessionRow[],
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => client.api.DELETE('/api/v1/sessions/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'user-sessions', user.id] }),
  });
  return (
    <div className="stack">
      <QueryState query={sessions} empty={sessions.data?.length === 0 ? 'No active sessions.' : undefined} />
      <ErrorNote error={revoke.error} />
      {sessions.data && sessions.data.length > 0 ? (
        <table className="data" aria-label={`Sessions of ${user.email}`}>
          <thead>
            <tr><th>Device</th><th>Address</th><th>Last used</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {sessions.data.map((session) => (
              <tr key={session.id}>
                <td>{session.userAgent ?? 'Unknown device'} {session.current ? <span className="badge">this browser</span> : null}</td>
                <td>{session.ip ?? '—'}</td>
                <td>{new Date(session.lastUsedAt).toLocaleString()}</td>
                <td>
                  <button type="button" aria-label={`Revoke session from ${session.userAgent ?? 'unknown device'}`} onClick={() => revoke.mutate(session.id)}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
