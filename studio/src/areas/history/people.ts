// Who someone is, for the history and review pages: the signed-in user is "you"; for a site
// administrator the site's users are listed (GET /users is theirs only), so ids read as emails.
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../session.tsx';
import { useIsAdmin } from '../../ui/permissions.ts';
import { apiJson } from '../../api.ts';

export interface SiteUser {
  id: string;
  email: string;
}

export function useSiteUsers(): SiteUser[] {
  const { client } = useSession();
  const admin = useIsAdmin();
  const users = useQuery({
    queryKey: ['history', 'users'],
    enabled: admin,
    queryFn: async () => (await apiJson<{ data: SiteUser[] }>(client, 'GET', '/users?limit=100')).data,
  });
  return users.data ?? [];
}

/** A function naming a user id: "you", their email, or the id itself. */
export function usePersonName(): (id: string | null | undefined) => string {
  const { user } = useSession();
  const users = useSiteUsers();
  return (id) => {
    if (!id) return '—';
    const email = users.find((candidate) => candidate.id === id)?.email;
    if (id === user?.id) return `you (${user.email})`;
    return email ?? id;
  };
}
