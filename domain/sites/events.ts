// Events of the sites context (the tenant registry): the zod schema of each event's data, and the
// event types inferred from them. The event store checks every event it reads against these
// (domain/shared/eventCatalogue.ts).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';
import { siteConfigChangesSchema } from './siteConfig.ts';

export const siteEventSchemas = {
  'site.created': z.object({ siteId: z.string(), name: z.string(), createdAt: z.string() }),
  'site.deleted': z.object({ siteId: z.string(), deletedAt: z.string() }),
  /** The fields of the site's configuration that changed (see siteConfig.ts for how they merge). */
  'site.configured': z.object({ siteId: z.string(), changes: siteConfigChangesSchema }),
};
export type SiteEvent = EventOf<typeof siteEventSchemas>;
