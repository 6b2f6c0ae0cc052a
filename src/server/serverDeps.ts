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
  /** Health checks areas register (the files' storage, the change feed's broker), by the name the health route reports. */
  healthChecks: Record<string, HealthCheck>;
}

/** One check of the health answer (src/modules/utils/routes.ts): `ok`, or what is wrong. */
export interface HealthCheck {
  run(): Promise<string>;
  /** Its outage only degrades the service (200 `degraded`, as Redis's does) instead of failing it (503 `error`). */
  degradable?: boolean;
}
