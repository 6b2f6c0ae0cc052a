// What a route declares about itself, and what every request carries; the hooks of app.ts read the
// one and fill in the other, so handlers never repeat them.
import type { EventMetadata, GitProvenance } from '../../domain/shared/events.ts';
import type { Access } from '../access/access.ts';
import type { AccessLevel } from '../auth/accessLevels.ts';
import type { Principal } from '../auth/principal.ts';

export type SiteRequirement = 'required' | 'none';
/** Who may call a route (the levels and what each admits: src/auth/accessLevels.ts). */
export type { AccessLevel } from '../auth/accessLevels.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    site?: SiteRequirement;
    access?: AccessLevel;
    /** A capability the principal must hold (`cdc:subscribe`, `media:create`, …); administrators hold all. 403 otherwise. */
    capability?: string;
    /**
     * The route checks its path parameters' shape itself and answers a bad one as the spec says
     * (delivery: 404, the body of a miss), so the shared check of unstorable text leaves them to it.
     */
    checksOwnPath?: boolean;
  }
  interface FastifyRequest {
    siteId: string;
    principal: Principal;
    /** What the principal may do in the request's site: built on first use, once per request. */
    access(): Promise<Access>;
    /** The event metadata of the request's writes: the acting principal and the request id. */
    readonly metadata: EventMetadata;
    /** The commit a write declares with X-Svc-Git-Commit (docs/integrations.md "Provenance"), recorded in its events' metadata. */
    gitProvenance: GitProvenance | undefined;
    /** @internal the memo behind access() */
    accessPromise: Promise<Access> | null;
  }
}
