// OAuth with a git provider (docs/integrations.md): GET …/oauth/authorize issues a single-use state
// (`<siteId>.<secret>`, kept as the secret's SHA-256 for ten minutes) and answers the provider's
// authorize URL; the public callback consumes the state (a second use, another provider's callback or
// an expired state is refused), exchanges the code and seals the token on the integration.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GitProvider } from '../../../domain/git/events.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { authorizeUrl, type OAuthClient } from '../../../infra/git/gitHost.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findIntegrationOr404, hostSettings } from './queries.ts';

const STATE_TTL_MS = 10 * 60_000;
/** A site keeps at most this many open states: older ones are dropped as new ones are issued. */
const OPEN_STATES_KEPT = 50;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The cookie that binds a state to the browser that asked for it. */
export const BINDING_COOKIE = 'svc_git_oauth';
export const STATE_TTL_SECONDS = STATE_TTL_MS / 1000;

export interface IssuedState {
  state: string;
  /** The cookie's value: the callback must bring it back. */
  binding: string;
}

export async function issueState(tx: Queryable, siteId: string, integrationId: string, provider: GitProvider, issuedBy: string | null, now: Date): Promise<IssuedState> {
  const secret = randomBytes(32).toString('base64url');
  const binding = randomBytes(32).toString('base64url');
  await tx.query(sql`DELETE FROM git_oauth_states WHERE site_id = ${siteId} AND expires_at <= ${now}`);
  await tx.query(sql`
    DELETE FROM git_oauth_states WHERE site_id = ${siteId} AND state_hash IN (
      SELECT state_hash FROM git_oauth_states WHERE site_id = ${siteId} ORDER BY expires_at DESC OFFSET ${OPEN_STATES_KEPT - 1})`);
  await tx.query(sql`
    INSERT INTO git_oauth_states (site_id, state_hash, integration_id, provider, expires_at, binding_hash, issued_by)
    VALUES (${siteId}, ${hashOf(secret)}, ${integrationId}, ${provider}, ${new Date(now.getTime() + STATE_TTL_MS)}, ${hashOf(binding)}, ${issuedBy})`);
  return { state: `${siteId}.${secret}`, binding };
}

/** The site a state names (before any query), or null when it is not one of ours. */
export function siteOfState(state: string): { siteId: string; secret: string } | null {
  const match = /^([a-z0-9][a-z0-9_-]{1,62})\.([A-Za-z0-9_-]{43})$/.exec(state);
  return match ? { siteId: match[1]!, secret: match[2]! } : null;
}

/**
 * Consumes a state once: the integration it was issued for, or null (unknown, used, expired, for
 * another provider, or brought by a browser other than the one it was issued to).
 */
export async function consumeState(tx: Queryable, siteId: string, secret: string, provider: GitProvider, binding: string | undefined, now: Date): Promise<string | null> {
  const [row] = await tx.query<{ integration_id: string; provider: string; expires_at: Date; binding_hash: string }>(
    sql`DELETE FROM git_oauth_states WHERE site_id = ${siteId} AND state_hash = ${hashOf(secret)} RETURNING integration_id, provider, expires_at, binding_hash`,
  );
  if (!row || row.provider !== provider || row.expires_at <= now || binding === undefined || row.binding_hash.length !== 64) return null;
  if (!timingSafeEqual(Buffer.from(hashOf(binding), 'hex'), Buffer.from(row.binding_hash, 'hex'))) return null;
  return row.integration_id;
}

export async function clearStates(tx: Queryable, siteId: string, integrationId: string): Promise<void> {
  await tx.query(sql`DELETE FROM git_oauth_states WHERE site_id = ${siteId} AND integration_id = ${integrationId}`);
}

/** The provider's OAuth app (SVC_GIT_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET), or 409 GIT_OAUTH_NOT_CONFIGURED. */
export function oauthClient(context: AppContext, provider: GitProvider): OAuthClient {
  const { config } = context;
  const [clientId, clientSecret] =
    provider === 'github' ? [config.SVC_GIT_GITHUB_CLIENT_ID, config.SVC_GIT_GITHUB_CLIENT_SECRET] : [config.SVC_GIT_GITLAB_CLIENT_ID, config.SVC_GIT_GITLAB_CLIENT_SECRET];
  if (!clientId || !clientSecret) {
    const prefix = `SVC_GIT_${provider.toUpperCase()}`;
    throw new AppError('GIT_OAUTH_NOT_CONFIGURED', `OAuth with ${provider} needs ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET`);
  }
  return { clientId, clientSecret };
}

/** Where the provider sends its user back: the public callback of this service. */
export const callbackUrl = (context: AppContext, provider: GitProvider) => new URL(`/api/v1/integrations/git/oauth/${provider}/callback`, context.config.SVC_PUBLIC_URL).toString();

/** GET …/oauth/authorize: a fresh single-use state, the provider's authorize URL that carries it, and the browser binding for the cookie. */
export async function authorizeIntegration(context: AppContext, siteId: string, integrationId: string, issuedBy: string | null): Promise<{ authorizeUrl: string; binding: string }> {
  return context.database.withSite(siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, siteId, integrationId);
    const client = oauthClient(context, integration.provider);
    const { state, binding } = await issueState(tx, siteId, integration.id, integration.provider, issuedBy, new Date());
    return { authorizeUrl: authorizeUrl(hostSettings(context), integration.provider, client, callbackUrl(context, integration.provider), state), binding };
  });
}
