// What the signed-in user may do with files: the `media:*` capabilities of `GET /permissions/me`
// (the query the layout asks too, so one request serves both). The service refuses the rest anyway.
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../session.tsx';

export interface MediaRights {
  known: boolean;
  admin: boolean;
  read: boolean;
  create: boolean;
  update: boolean;
  remove: boolean;
}

export function useMediaRights(): MediaRights {
  const { client, user } = useSession();
  const me = useQuery({
    queryKey: ['permissions', 'me'],
    enabled: user !== null,
    queryFn: async () => (await client.api.GET('/api/v1/permissions/me')).data as { data: { principal: { admin: boolean } } },
  });
  const data = me.data?.data as { principal?: { admin?: boolean }; admin?: boolean; capabilities?: string[] } | undefined;
  const capabilities = new Set(data?.capabilities ?? []);
  const admin = data?.admin === true || data?.principal?.admin === true;
  return {
    known: data !== undefined,
    admin,
    read: admin || capabilities.has('media:read'),
    create: admin || capabilities.has('media:create'),
    update: admin || capabilities.has('media:update'),
    remove: admin || capabilities.has('media:delete'),
  };
}
