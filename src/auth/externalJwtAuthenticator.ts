// JWTs of trusted external identity providers, between API keys and the service's own JWT. A token
// whose `iss` names no enabled issuer of the site is passed on. Once an issuer matches, everything is
// fail-closed: signature by the issuer's key set with its asymmetric algorithms only, `aud`, `exp`
// (required), `nbf`, clock skew, the site claim, and a role mapping with default deny.
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { IssuerConfig } from '../../domain/identity/issuer.ts';
import { AppError, errors } from '../../domain/shared/appError.ts';
import { isUuid } from '../../domain/shared/uuid.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';
import { ACCESS_TOKEN_ISSUER } from './accessTokens.ts';
import { API_KEY_PREFIX } from './apiKeyAuthenticator.ts';
import type { Authenticator } from './authenticate.ts';
import { resolveExternalUser } from './externalIdentities.ts';
import type { IssuerKeySets } from './issuerKeySets.ts';

/** A claim by name, or by dotted path into nested objects (`realm_access.roles`). */
export function claimAt(payload: JWTPayload, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  let current: unknown = payload;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function stringClaim(payload: JWTPayload, path: string): string | null {
  const value = claimAt(payload, path);
  return typeof value === 'string' && value.length > 0 ? value : null;
}

interface RoleRow {
  id: string;
  admin: boolean;
}

export function externalJwtAuthenticator(context: Pick<AppContext, 'database' | 'projections'>, keySets: IssuerKeySets): Authenticator {
  async function findIssuer(siteId: string, iss: string): Promise<{ id: string; config: IssuerConfig } | null> {
    const [row] = await context.database.withSite(siteId, (tx) =>
      tx.query<{ id: string; config: IssuerConfig }>(
        sql`SELECT id, config FROM trusted_issuers WHERE site_id = ${siteId} AND issuer = ${iss} AND enabled`,
      ),
    );
    return row ?? null;
  }

  async function findRole(siteId: string, target: { roleId?: string; systemKey?: string }): Promise<RoleRow | null> {
    if (target.roleId !== undefined && !isUuid(target.roleId)) return null;
    const [row] = await context.database.withSite(siteId, (tx) =>
      tx.query<RoleRow>(
        target.roleId !== undefined
          ? sql`SELECT id, admin FROM roles WHERE site_id = ${siteId} AND id = ${target.roleId}::uuid`
          : sql`SELECT id, admin FROM roles WHERE site_id = ${siteId} AND system_key = ${target.systemKey ?? null}`,
      ),
    );
    return row ?? null;
  }

  /** The first role claim value with a mapping to an existing role, else the default role, else 403. */
  async function mappedRole(siteId: string, config: IssuerConfig, payload: JWTPayload): Promise<RoleRow> {
    const claim = claimAt(payload, config.claimMapping.roles);
    const values = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim.filter((value): value is string => typeof value === 'string') : [];
    for (const value of values) {
      if (!Object.hasOwn(config.roleMapping, value)) continue;
      const role = await findRole(siteId, config.roleMapping[value]!);
      if (role) return role;
    }
    if (config.defaultRoleId) {
      const role = await findRole(siteId, { roleId: config.defaultRoleId });
      if (role) return role;
    }
    throw new AppError('PERMISSION_DENIED', 'No role of this site is mapped to the roles of the token');
  }

  return async ({ token, siteId }) => {
    if (siteId === null || token.startsWith(API_KEY_PREFIX)) return null;
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return null;
    }
    if (typeof iss !== 'string' || iss === ACCESS_TOKEN_ISSUER) return null;
    const issuer = await findIssuer(siteId, iss);
    if (!issuer) return null;
    const { config } = issuer;

    const keySet = await keySets.keySetFor(config);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: config.algorithms,
        clockTolerance: config.clockSkewSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw errors.tokenExpired();
      throw errors.unauthenticated('The token could not be verified against its issuer');
    }

    const siteClaim = config.claimMapping.siteId ? claimAt(payload, config.claimMapping.siteId) : claimAt(payload, 'siteId');
    if (config.claimMapping.siteId && siteClaim === undefined) throw errors.unauthenticated('The token has no site claim');
    if (siteClaim !== undefined && siteClaim !== siteId) throw errors.unauthenticated('This token was issued for another site');

    const role = await mappedRole(siteId, config, payload);
    const externalId = stringClaim(payload, config.claimMapping.externalId ?? 'sub');
    if (!externalId) throw errors.unauthenticated('The token has no subject');
    const email = stringClaim(payload, config.claimMapping.email)?.trim().toLowerCase() ?? null;
    const user = await resolveExternalUser(
      context,
      siteId,
      {
        issuerId: issuer.id,
        externalId,
        email,
        emailVerified: claimAt(payload, 'email_verified') !== false,
        firstName: stringClaim(payload, 'given_name'),
        lastName: stringClaim(payload, 'family_name'),
      },
      { jit: config.jitProvisioning, roleId: role.id },
    );
    if (!user) throw errors.unauthenticated('No user of this site matches the token');
    if (user.status !== 'active') throw errors.unauthenticated('The account is not active');
    return {
      kind: 'user',
      userId: user.id,
      roleId: role.id,
      admin: role.admin,
      sessionId: null,
      impersonatorId: null,
      via: 'external',
      realm: 'studio',
      issuerId: issuer.id,
    };
  };
}
