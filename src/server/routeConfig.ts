// What a route declares about itself, and what every request carries; the hooks of app.ts read the
// one and fill in the other, so handlers never repeat them.
import type { EventMetadata } from '../../domain/shared/events.ts';
import type { Access } from '../access/access.ts';
import type { Principal } from '../auth/principal.ts';

export type SiteRequirement = 'required' | 'none';
/**
 * Who may call a route:
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

declare module 'fastify' {
  interface FastifyContextConfig {
    site?: SiteRequirement;
    access?: AccessLevel;
    /** A capability the principal must hold (`cdc:subscribe`, `media:create`, …); administrators hold all. 403 otherwise. */
    capability?: string;
  }
  interface FastifyRequest {
    siteId: string;
    principal: Principal;
    /** What the principal may do in the request's site: built on first use, once per request. */
    access(): Promise<Access>;
    /** The event metadata of the request's writes: the acting principal and the request id. */
    readonly metadata: EventMetadata;
    /** @internal the memo behind access() */
    accessPromise: Promise<Access> | null;
  }
}
