// Long-lived connections end with the credential behind them. A realtime socket or a GraphQL
// subscription stream was authorized once, when it opened; afterwards the log's identity and access
// events (a logout, a password change, a suspension, a key revoked, a role or grant changed) reach
// every instance as revocations in the realtime fan-out (./logTailer.ts), and each instance ends
// the connections it holds that they concern: at once when the credential itself ended or the
// user's role changed, after checking the holder's permissions again when a grant of the site
// changed. `check` reads the credential's state from the database, for the moment a connection
// opens (a ticket issued before a logout must not open a socket after it).
import type { Logger } from 'pino';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { policiesProjection } from '../../../projections/policiesProjection.ts';
import { accessFor, type Access } from '../../access/access.ts';
import { apiKeyPrincipal, findApiKeyBinding } from '../../auth/apiKeyAuthenticator.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { Revocation } from './realtimeFrames.ts';

/** Why a connection ends: its credential is no longer valid (401, close 4401), or its permissions changed (403, close 4403). */
export type RevokeReason = 'unauthenticated' | 'forbidden';

export const CLOSE_CODES: Record<RevokeReason, number> = { unauthenticated: 4401, forbidden: 4403 };

export const REVOKE_MESSAGES: Record<RevokeReason, string> = {
  unauthenticated: 'The credential behind this connection ended (logout, password change, suspension or key revocation); reconnect with a valid one',
  forbidden: "The holder's role or permissions changed; reconnect to be authorized again",
};

const ACCESS_EVENTS: ReadonlySet<string> = new Set(policiesProjection.eventTypes === '*' ? [] : policiesProjection.eventTypes);

/** What one logged event revokes. */
export function revocationsOf(event: StoredEvent): Revocation[] {
  const revocations: Revocation[] = [];
  switch (event.type) {
    case 'session.revoked':
      revocations.push({ kind: 'session', sessionId: event.data.sessionId });
      break;
    case 'api_key.revoked':
      revocations.push({ kind: 'apiKey', apiKeyId: event.data.apiKeyId });
      break;
    case 'user.password_changed':
      revocations.push({ kind: 'user', userId: event.data.userId, scope: 'sessions' });
      break;
    case 'user.deleted':
      revocations.push({ kind: 'user', userId: event.data.userId, scope: 'credentials' });
      break;
    case 'user.updated': {
      const { changes } = event.data;
      if (changes.status !== undefined && changes.status !== 'active') revocations.push({ kind: 'user', userId: event.data.userId, scope: 'credentials' });
      if (changes.roleId !== undefined) revocations.push({ kind: 'user', userId: event.data.userId, scope: 'permissions' });
      break;
    }
    case 'role.updated':
      if (event.data.changes.admin !== undefined) revocations.push({ kind: 'role', roleId: event.data.roleId });
      break;
    case 'role.deleted':
      revocations.push({ kind: 'role', roleId: event.data.roleId });
      break;
    default:
      break;
  }
  if (ACCESS_EVENTS.has(event.type)) revocations.push({ kind: 'access' });
  return revocations;
}

/** What a revocation means for one holder: end now, check its permissions again, or nothing. */
function verdict(revocation: Revocation, holder: UserPrincipal): RevokeReason | 'recheck' | null {
  switch (revocation.kind) {
    case 'session':
      return holder.sessionId === revocation.sessionId ? 'unauthenticated' : null;
    case 'apiKey':
      return holder.apiKeyId === revocation.apiKeyId ? 'unauthenticated' : null;
    case 'user':
      if (holder.userId !== revocation.userId) return null;
      if (revocation.scope === 'permissions') return 'forbidden';
      // A password change ends the user's login tokens, not its API keys or an identity provider's tokens.
      return revocation.scope === 'credentials' || holder.via === 'session' ? 'unauthenticated' : null;
    case 'role':
      return holder.roleId === revocation.roleId ? 'forbidden' : null;
    case 'access':
      return holder.admin ? null : 'recheck';
  }
}

export interface RevocationWatcher {
  siteId: string;
  holder: UserPrincipal;
  /** After a grant of the site changed: whether the holder may go on, by its permissions as they are now. */
  allowed(access: Access): boolean;
  /** Ends the connection (called at most once). */
  revoke(reason: RevokeReason): void;
}

export interface Revocations {
  /** Follows the revocations that concern the watcher until the returned function is called. */
  watch(watcher: RevocationWatcher): () => void;
  /** A message's revocations for this instance's watchers of the site. */
  apply(siteId: string, revocations: readonly Revocation[]): void;
  /** Whether the holder's credential and role still stand, read from the database: null when they do. */
  check(siteId: string, holder: UserPrincipal): Promise<RevokeReason | null>;
  readonly size: number;
}

interface UserRow {
  status: string;
  role_id: string | null;
  admin: boolean | null;
  session_revoked: boolean;
}

type RevocationContext = Pick<AppContext, 'database' | 'schemas' | 'grants' | 'logger'>;

export function createRevocations(context: RevocationContext, logger: Logger = context.logger): Revocations {
  const bySite = new Map<string, Set<RevocationWatcher>>();
  let count = 0;

  function end(watcher: RevocationWatcher, reason: RevokeReason): void {
    const watchers = bySite.get(watcher.siteId);
    if (!watchers?.delete(watcher)) return;
    count -= 1;
    if (watchers.size === 0) bySite.delete(watcher.siteId);
    try {
      watcher.revoke(reason);
    } catch (error) {
      logger.warn({ err: error, siteId: watcher.siteId }, 'ending a revoked realtime connection failed');
    }
  }

  async function recheck(siteId: string, watchers: RevocationWatcher[]): Promise<void> {
    for (const watcher of watchers) {
      if (!bySite.get(siteId)?.has(watcher)) continue;
      let allowed = false;
      try {
        allowed = watcher.allowed(await accessFor(context, siteId, watcher.holder));
      } catch (error) {
        // Fail closed: a holder whose permissions cannot be read now reconnects and is authorized again.
        logger.warn({ err: error, siteId }, 'checking a realtime holder after an access change failed; closing it');
      }
      if (!allowed) end(watcher, 'forbidden');
    }
  }

  async function checkUser(siteId: string, holder: UserPrincipal): Promise<RevokeReason | null> {
    if (!isUuid(holder.userId) || (holder.sessionId !== null && !isUuid(holder.sessionId))) return 'unauthenticated';
    const [user] = await context.database.query<UserRow>(sql`SELECT status, role_id, admin, session_revoked FROM svc_user_access(${siteId}, ${holder.userId}::uuid, ${holder.sessionId}::uuid)`);
    if (!user || user.status !== 'active' || user.session_revoked) return 'unauthenticated';
    // An identity provider's token brings its own role (the issuer's role mapping), not the stored one.
    if (holder.via === 'external') return null;
    return user.role_id === holder.roleId && (user.admin === true) === holder.admin ? null : 'forbidden';
  }

  async function checkApiKey(siteId: string, holder: UserPrincipal): Promise<RevokeReason | null> {
    if (!holder.apiKeyId || !isUuid(holder.apiKeyId)) return 'unauthenticated';
    const keyId = holder.apiKeyId;
    const key = await context.database.withSiteReads(siteId, (tx) => findApiKeyBinding(tx, siteId, sql`k.id = ${keyId}::uuid`));
    // Whom the key speaks for now, as the authenticator would answer it.
    const now = key ? apiKeyPrincipal(key) : null;
    if (!now) return 'unauthenticated';
    return now.roleId === holder.roleId && now.admin === holder.admin ? null : 'forbidden';
  }

  return {
    watch(watcher) {
      let watchers = bySite.get(watcher.siteId);
      if (!watchers) bySite.set(watcher.siteId, (watchers = new Set()));
      watchers.add(watcher);
      count += 1;
      return () => {
        const current = bySite.get(watcher.siteId);
        if (!current?.delete(watcher)) return;
        count -= 1;
        if (current.size === 0) bySite.delete(watcher.siteId);
      };
    },
    apply(siteId, revocations) {
      if (revocations.length === 0) return;
      const watchers = bySite.get(siteId);
      const toRecheck: RevocationWatcher[] = [];
      for (const watcher of watchers ? [...watchers] : []) {
        const verdicts = revocations.map((revocation) => verdict(revocation, watcher.holder));
        const ended = verdicts.includes('unauthenticated') ? 'unauthenticated' : verdicts.includes('forbidden') ? 'forbidden' : null;
        if (ended) end(watcher, ended);
        else if (verdicts.includes('recheck')) toRecheck.push(watcher);
      }
      if (!revocations.some((revocation) => revocation.kind === 'access')) return;
      // The NOTIFY that drops this instance's grants may come after the fan-out's message: drop them now.
      context.grants.invalidate(siteId);
      if (toRecheck.length > 0) void recheck(siteId, toRecheck);
    },
    async check(siteId, holder) {
      return holder.via === 'apiKey' ? checkApiKey(siteId, holder) : checkUser(siteId, holder);
    },
    get size() {
      return count;
    },
  };
}
