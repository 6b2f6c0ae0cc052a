// Who may call a route or run a command: the access levels, and whether a principal meets one. The
// routes' hooks (src/server/app.ts) and the command registry (src/runtime/commandRegistry.ts) ask here.
import { errors } from '../../domain/shared/appError.ts';
import { isPerson, isSiteAdmin, isSiteUser, type Principal } from './principal.ts';

/**
 * - `public`: anyone;
 * - `bearer`: any authenticated principal (API keys bound to a role included);
 * - `user`: a person, or an agent acting for one (a session, an identity provider's token, an API key
 *   bound to a user): not a key bound to a role, which speaks for no one;
 * - `person`: a person signed in as themselves (a session or an identity provider's token), not an
 *   API key;
 * - `siteAdmin`: the site's administrators (their keys included);
 * - `personAdmin`: a site administrator signed in as themselves, not an API key (step-up actions,
 *   impersonation, dual control);
 * - `instance`: the instance token.
 */
export type AccessLevel = 'public' | 'bearer' | 'user' | 'person' | 'siteAdmin' | 'personAdmin' | 'instance';

/** Whether `principal` meets `level`. */
export function principalMeets(level: AccessLevel, principal: Principal): boolean {
  switch (level) {
    case 'public':
      return true;
    case 'instance':
      return principal.kind === 'instance';
    case 'bearer':
      return principal.kind !== 'anonymous';
    case 'user':
      return isSiteUser(principal);
    case 'person':
      return isPerson(principal);
    case 'siteAdmin':
      return isSiteAdmin(principal);
    case 'personAdmin':
      return isSiteAdmin(principal) && isPerson(principal);
  }
}

/** `principalMeets`, or the answer a route gives: 401 to no principal, 403 saying what the level needs. */
export function assertPrincipalMeets(level: AccessLevel, principal: Principal): void {
  if (principalMeets(level, principal)) return;
  if (principal.kind === 'anonymous') throw errors.unauthenticated();
  switch (level) {
    case 'user':
      throw errors.forbidden('This needs a signed-in user, or an API key bound to one');
    case 'person':
      throw errors.forbidden('This needs a signed-in user, not an API key');
    case 'personAdmin':
      if (isSiteAdmin(principal)) throw errors.forbidden('This needs a site administrator signed in as themselves, not an API key');
      throw errors.forbidden();
    case 'instance':
      throw errors.unauthenticated('A valid instance token is required');
    default:
      throw errors.forbidden();
  }
}
