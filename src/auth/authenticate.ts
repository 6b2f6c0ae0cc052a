// Turns a bearer token into a principal. The chain is API key → external JWT → internal JWT: each
// authenticator either claims the token (and then decides, fail-closed) or passes it on.
import { errors } from '../../domain/shared/appError.ts';
import { isUuid } from '../../domain/shared/uuid.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';
import type { AccessTokenIssuer } from './accessTokens.ts';
import type { Principal } from './principal.ts';
import { createIdentityChecks } from './identityChecks.ts';

export interface AuthenticationRequest {
  token: string;
  /** The site the request is for; null on instance-level routes. */
  siteId: string | null;
}

/** Returns a principal when the token is this authenticator's kind, null to pass it on; throws to refuse. */
export type Authenticator = (request: AuthenticationRequest) => Promise<Principal | null>;

/** What svc_user_access finds for a site, user and session: what a login token's check needs. */
interface UserAccessRow {
  id: string;
  status: string;
  token_version: number;
  role_id: string | null;
  admin: boolean | null;
  session_revoked: boolean;
}

async function loadUserAccess(
  context: Pick<AppContext, 'database'>,
  siteId: string,
  userId: string,
  sessionId: string | null,
): Promise<UserAccessRow | null> {
  const rows = await context.database.query<UserAccessRow>(
    sql`SELECT * FROM svc_user_access(${siteId}, ${userId}::uuid, ${sessionId}::uuid)`,
  );
  return rows[0] ?? null;
}

/** The service's own login tokens. */
export function internalJwtAuthenticator(context: Pick<AppContext, 'database' | 'notifier' | 'onClose'>, tokens: AccessTokenIssuer): Authenticator {
  const checks = createIdentityChecks<UserAccessRow>(context);
  return async ({ token, siteId }) => {
    const claims = await tokens.verify(token);
    if (siteId === null || claims.siteId !== siteId) throw errors.unauthenticated('This token was issued for another site');
    if (!isUuid(claims.userId) || (claims.sessionId !== null && !isUuid(claims.sessionId))) {
      throw errors.unauthenticated('Invalid token');
    }
    // A revoked session (logout, DELETE /me/sessions/:id) ends its access tokens at once, like a
    // password change does through tokenVersion.
    const { userId, sessionId } = claims;
    const user = await checks.get(siteId, `${userId}\u0000${sessionId ?? ''}`, () => loadUserAccess(context, siteId, userId, sessionId));
    if (!user || user.status !== 'active' || user.token_version !== claims.tokenVersion || user.session_revoked) {
      throw errors.unauthenticated('This token is no longer valid');
    }
    return {
      kind: 'user',
      userId: user.id,
      roleId: user.role_id,
      admin: user.admin === true,
      sessionId: claims.sessionId,
      impersonatorId: claims.impersonatorId ?? null,
      via: 'session',
      realm: claims.realm,
    };
  };
}

export function createAuthenticationChain(chain: () => Authenticator[]): (request: AuthenticationRequest) => Promise<Principal> {
  return async (request) => {
    for (const authenticate of chain()) {
      const principal = await authenticate(request);
      if (principal) return principal;
    }
    throw errors.unauthenticated('Invalid token');
  };
}
