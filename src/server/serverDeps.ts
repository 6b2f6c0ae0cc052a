// What every area's routes receive when the server registers them (built once in app.ts).
import type { AccessTokenIssuer } from '../auth/accessTokens.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import type { AppContext } from '../runtime/context.ts';
import type { SiteResolver } from './siteResolution.ts';

export interface ServerDeps {
  context: AppContext;
  tokens: AccessTokenIssuer;
  sites: SiteResolver;
  /** Authenticators tried before the service's own JWT (API keys, external issuers). */
  authenticators: Authenticator[];
  /** Health checks of optional parts (Redis cache, queue), by the name the health route reports. */
  healthChecks: Record<string, () => Promise<string>>;
}
