// What a route declares about itself; the hooks read it, handlers never repeat it.
import type { Principal } from '../auth/principal.ts';

export type SiteRequirement = 'required' | 'none';
/** public: anyone; bearer: any signed-in principal; siteAdmin: the site's administrators; instance: the instance token. */
export type AccessLevel = 'public' | 'bearer' | 'siteAdmin' | 'instance';

declare module 'fastify' {
  interface FastifyContextConfig {
    site?: SiteRequirement;
    access?: AccessLevel;
  }
  interface FastifyRequest {
    siteId: string;
    principal: Principal;
  }
}
