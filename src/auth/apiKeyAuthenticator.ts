// API keys (`svk_` + 32 random bytes, base64url) as bearer tokens, first in the chain. A key is looked
// up by its hash within the request's site only, so another site's key is simply unknown (401). The
// lookup is cached per instance like a login token's check (./identityChecks.ts): at most
// MAX_AGE_MS old, and dropped on every instance as soon as the site's identity changes.
//
// Last use: the first use of a key, and then at most one use a minute per key and instance, writes
// `api_key_usage.last_used_at` directly. That table is telemetry, not a read model of the log: an
// event per use would bury the audit log under reads, and an event a minute per key would still say
// nothing an operator needs. Creation and revocation are events as usual.
//
// Expiry: a key created with `expiresAt` answers 401 TOKEN_EXPIRED from that instant on. The cached
// check keeps the expiry and it is compared with the clock on every request, so a cached key stops
// at its expiry, not when its cache entry goes.
import { AppError, errors } from '../../domain/shared/appError.ts';
import { tokenHash } from '../../infra/crypto/secrets.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { prepared, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';
import type { Authenticator } from './authenticate.ts';
import { createIdentityChecks } from './identityChecks.ts';
import { API_KEY_USER_PREFIX, type UserPrincipal } from './principal.ts';

export const API_KEY_PREFIX = 'svk_';
const TOUCH_INTERVAL_MS = 60_000;
const API_KEY_PATTERN = /^svk_[A-Za-z0-9_-]{43}$/;

/** A key's binding as it stands: its user (with status and role) or its role. */
export interface ApiKeyRow {
  id: string;
  user_id: string | null;
  role_id: string | null;
  user_status: string | null;
  user_role_id: string | null;
  user_admin: boolean | null;
  key_role_exists: boolean;
  key_role_admin: boolean | null;
  expires_at: Date | null;
}

/**
 * The live (unrevoked) key of the site that `which` names (`k.key_hash = …` or `k.id = …`), with its
 * binding. One statement per form, prepared on each connection: the join is planned once.
 */
export async function findApiKeyBinding(tx: Queryable, siteId: string, which: SqlFragment): Promise<ApiKeyRow | null> {
  const [key] = await tx.query<ApiKeyRow>(
    prepared(sql`
    SELECT k.id, k.user_id, k.role_id, u.status AS user_status, u.role_id AS user_role_id, ur.admin AS user_admin,
           kr.id IS NOT NULL AS key_role_exists, kr.admin AS key_role_admin, k.expires_at
      FROM api_keys k
      LEFT JOIN users u ON u.site_id = k.site_id AND u.id = k.user_id
      LEFT JOIN roles ur ON ur.site_id = u.site_id AND ur.id = u.role_id
      LEFT JOIN roles kr ON kr.site_id = k.site_id AND kr.id = k.role_id
     WHERE k.site_id = ${siteId} AND ${which} AND k.revoked_at IS NULL`),
  );
  return key ?? null;
}

/** Whether the key's expiry has come (at `now`, by default the clock's). */
export function apiKeyExpired(key: ApiKeyRow, now = Date.now()): boolean {
  return key.expires_at !== null && key.expires_at.getTime() <= now;
}

/** Whom a key speaks for now: its user while active, else its role while it exists; null when neither, or once the key expired. */
export function apiKeyPrincipal(key: ApiKeyRow, now = Date.now()): UserPrincipal | null {
  if (apiKeyExpired(key, now)) return null;
  if (key.user_id) return key.user_status === 'active' ? keyPrincipal(key, key.user_id, key.user_role_id, key.user_admin === true) : null;
  if (!key.key_role_exists) return null;
  return keyPrincipal(key, `${API_KEY_USER_PREFIX}${key.id}`, key.role_id, key.key_role_admin === true);
}

/**
 * One object literal with every property: a spread of a shared base gave each principal a hidden
 * class of its own, allocated in V8's old space, a few hundred bytes per request until a full GC.
 */
function keyPrincipal(key: ApiKeyRow, userId: string, roleId: string | null, admin: boolean): UserPrincipal {
  return { kind: 'user', userId, roleId, admin, sessionId: null, impersonatorId: null, via: 'apiKey', realm: 'studio', apiKeyId: key.id };
}

export function apiKeyAuthenticator(context: Pick<AppContext, 'database' | 'notifier' | 'onClose'>): Authenticator {
  const lastTouched = new Map<string, number>();
  // A key's binding is checked as a login token is: cached per instance, dropped on every identity
  // change of the site (revocation, a user's status or role, a role's admin flag) on every instance.
  const checks = createIdentityChecks<ApiKeyRow>(context);

  const lookUp = (siteId: string, keyHash: string) =>
    context.database.withSiteReads(siteId, (tx) => findApiKeyBinding(tx, siteId, sql`k.key_hash = ${keyHash}`));

  async function touch(siteId: string, keyId: string): Promise<void> {
    const touchKey = `${siteId}/${keyId}`;
    const now = Date.now();
    if (now - (lastTouched.get(touchKey) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(touchKey, now);
    await context.database.withSite(siteId, (tx) =>
      tx.query(sql`
        INSERT INTO api_key_usage (site_id, api_key_id, last_used_at) VALUES (${siteId}, ${keyId}, now())
        ON CONFLICT (site_id, api_key_id) DO UPDATE SET last_used_at = excluded.last_used_at`),
    );
  }

  return async ({ token, siteId }) => {
    if (!token.startsWith(API_KEY_PREFIX)) return null;
    if (!API_KEY_PATTERN.test(token)) throw errors.unauthenticated('Invalid API key');
    if (siteId === null) throw errors.unauthenticated('An API key is valid only on its site');
    const keyHash = tokenHash(token);
    const key = await checks.get(siteId, keyHash, () => lookUp(siteId, keyHash));
    if (key && apiKeyExpired(key)) throw new AppError('TOKEN_EXPIRED', 'The API key has expired', { extensions: { expiresAt: key.expires_at!.toISOString() } });
    const principal = key ? apiKeyPrincipal(key) : null;
    if (!key || !principal) throw errors.unauthenticated('Invalid API key');
    await touch(siteId, key.id);
    return principal;
  };
}
