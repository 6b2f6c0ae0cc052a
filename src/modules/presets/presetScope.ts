// The scope rules of presets (docs/presets.md): whose presets a principal sees, and which it may manage.
import { errors } from '../../../domain/shared/appError.ts';
import { isSiteAdmin, isSiteUser, type Principal } from '../../auth/principal.ts';
import type { PresetViewer } from './queries.ts';

/** Whose presets the principal sees: a user of the site sees their own; an API key bound to a role only its role's and global ones. */
export function viewerOf(principal: Principal): PresetViewer {
  if (principal.kind !== 'user') return { userId: null, roleId: null };
  return { userId: isSiteUser(principal) ? principal.userId.toLowerCase() : null, roleId: principal.roleId };
}

/** Refuses a member what only an administrator may do: every scope but their own user presets. */
export function authorizeScope(principal: Principal, owner: { userId: string | null; roleId: string | null }): void {
  if (isSiteAdmin(principal)) return;
  const viewer = viewerOf(principal);
  if (owner.userId !== null) {
    if (viewer.userId !== null && owner.userId === viewer.userId) return;
    throw errors.forbidden('You may manage only your own presets');
  }
  if (owner.roleId !== null) throw errors.forbidden('Role presets need a site administrator');
  throw errors.forbidden('Global presets need a site administrator');
}

