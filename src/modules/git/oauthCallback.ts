// The public OAuth callback (docs/integrations.md "OAuth"): GET /integrations/git/oauth/:provider/callback.
// A provider's redirect carries no principal: its single-use state names the site and integration,
// and the browser must bring the cookie the authorize answer set with it (a state handed to someone
// else cannot link their account).
// The state is spent before anything else (a refusal spends it too), then the code is exchanged and
// the granted token sealed on the integration.
import type { GitProvider } from '../../../domain/git/events.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { exchangeOAuthCode } from '../../../infra/git/gitHost.ts';
import { inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { storeGrantedToken } from './handlers.ts';
import { callbackUrl, consumeState, oauthClient, siteOfState } from './oauth.ts';
import { findIntegrationOr404, hostSettings, siteIsLive } from './queries.ts';

export interface CallbackQuery {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
}

const STATE_REFUSAL = 'Unknown, used or expired OAuth state, or a state this browser was not given (the authorize answer sets the cookie svc_git_oauth)';

export async function completeOAuth(context: AppContext, provider: GitProvider, query: CallbackQuery, binding: string | undefined, requestId: string): Promise<{ integrationId: string; authMethod: 'app' }> {
  const refused = (message: string, field: string) => new AppError('VALIDATION_ERROR', message, { path: ['query', field] });
  const named = siteOfState(query.state);
  if (!named || !(await siteIsLive(context, named.siteId))) throw refused(STATE_REFUSAL, 'state');
  const { siteId } = named;
  const integrationId = await context.database.withSite(siteId, (tx) => consumeState(tx, siteId, named.secret, provider, binding, new Date()));
  if (integrationId === null) throw refused(STATE_REFUSAL, 'state');
  if (query.error !== undefined) throw refused(`The provider refused the grant: ${query.error}`, 'error');
  if (query.code === undefined) throw refused('The callback has no code', 'code');
  const token = await exchangeOAuthCode(hostSettings(context), provider, oauthClient(context, provider), query.code, callbackUrl(context, provider));
  const metadata: EventMetadata = { actor: { kind: 'system', id: `git-oauth:${integrationId}` }, requestId };
  await inSiteTransaction(context, siteId, async (tx) => storeGrantedToken(context, tx, siteId, await findIntegrationOr404(context, tx, siteId, integrationId), token, metadata));
  return { integrationId, authMethod: 'app' };
}
