// What the signed-in user may do: `GET /permissions/me`, asked once per session and shared by every
// screen (the navigation, the administrators' pages, the files' controls). The service checks every
// request anyway: this only decides what the Studio offers.
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../session.tsx';

export interface MyPermissions {
  principal: { kind: string; userId: string | null; roleId: string | null; admin: boolean };
  admin: boolean;
  /** Capabilities such as `media:create` (all of them for an administrator). */
  capabilities: string[];
}

export function usePermissions() {
  const { client, user } = useSession();
  return useQuery({
    queryKey: ['permissions', 'me'],
    enabled: user !== null,
    queryFn: async () => (await client.api.GET('/api/v1/permissions/me')).data!.data as unknown as MyPermissions,
  });
}

/** Whether the user administers the site: null while the service has not said. */
export function useAdminState(): boolean | null {
  const permissions = usePermissions();
  return permissions.data ? permissions.data.principal.admin === true : null;
}

export function useIsAdmin(): boolean {
  return useAdminState() === true;
}
