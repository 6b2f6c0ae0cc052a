// What the signed-in user may do with files: the `media:*` capabilities of `GET /permissions/me`
// (the query the layout asks too, so one request serves both). The service refuses the rest anyway.
import { usePermissions } from '../../ui/permissions.ts';

export interface MediaRights {
  known: boolean;
  admin: boolean;
  read: boolean;
  create: boolean;
  update: boolean;
  remove: boolean;
}

export function useMediaRights(): MediaRights {
  const data = usePermissions().data;
  const capabilities = new Set(data?.capabilities ?? []);
  const admin = data?.principal.admin === true;
  return {
    known: data !== undefined,
    admin,
    read: admin || capabilities.has('media:read'),
    create: admin || capabilities.has('media:create'),
    update: admin || capabilities.has('media:update'),
    remove: admin || capabilities.has('media:delete'),
  };
}
