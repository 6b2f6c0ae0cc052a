// Who is calling: the result of authentication, carried on every request.
import { errors } from '../../domain/shared/appError.ts';
import type { EventMetadata } from '../../domain/shared/events.ts';

export type Principal =
  | { kind: 'anonymous' }
  | {
      kind: 'user';
      userId: string;
      roleId: string | null;
      admin: boolean;
      sessionId: string | null;
      impersonatorId?: string | null;
      /** Where the credential came from: a login token, an API key, an external issuer, a flow acting for its owner or role (docs/flows.md). */
      via: 'session' | 'apiKey' | 'external' | 'flow';
      realm: 'studio' | 'frontend';
      /** The API key used (via 'apiKey'). A key bound to a role has the synthetic userId `apikey:<id>`. */
      apiKeyId?: string;
      /** The trusted issuer that vouched for the token (via 'external'). */
      issuerId?: string;
    }
  | { kind: 'instance' };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** Prefix of the synthetic user id of a principal that comes from an API key bound to a role. */
export const API_KEY_USER_PREFIX = 'apikey:';
/** Prefix of the synthetic user id of a flow that acts as a role (`actAs`), not as its owner. */
export const FLOW_USER_PREFIX = 'flow:';

/** Whether the principal is a real user of the site (not a role-bound API key or flow): a person, or an agent (a key, a flow) acting for one. */
export function isSiteUser(principal: Principal): principal is UserPrincipal {
  return principal.kind === 'user' && !principal.userId.startsWith(API_KEY_USER_PREFIX) && !principal.userId.startsWith(FLOW_USER_PREFIX);
}

/** Whether the principal is a person signed in (a session or an identity provider's token), not an API key or a flow. */
export function isPerson(principal: Principal): principal is UserPrincipal {
  return isSiteUser(principal) && principal.via !== 'apiKey' && principal.via !== 'flow';
}

/** Whether the principal is one of the site's administrators (a user of an admin role, or a key of one). */
export function isSiteAdmin(principal: Principal): principal is UserPrincipal {
  return principal.kind === 'user' && principal.admin;
}

/**
 * The user principal of a request whose route's access level admits only user principals (every
 * level but `public` and `instance` on a site's routes): a narrowing, not a check of its own.
 */
export function userPrincipal(principal: Principal): UserPrincipal {
  if (principal.kind !== 'user') throw errors.forbidden();
  return principal;
}

export function actorOf(principal: Principal): { kind: 'user' | 'apiKey' | 'system' | 'instance' | 'anonymous'; id: string | null; impersonatorId?: string } {
  switch (principal.kind) {
    case 'user':
      return {
        kind: principal.via === 'apiKey' ? 'apiKey' : 'user',
        id: principal.userId,
        ...(principal.impersonatorId ? { impersonatorId: principal.impersonatorId } : {}),
      };
    case 'instance':
      return { kind: 'instance', id: null };
    default:
      return { kind: 'anonymous', id: null };
  }
}

/** The metadata of a write made by someone not yet signed in (sign-in, registration, emailed links), whatever token came along. */
export function anonymousMetadata(requestId: string): EventMetadata {
  return { actor: { kind: 'anonymous', id: null }, requestId };
}
