// Events of the releases context: a release is a named set of items, each with the status it will
// take when the release is published (optionally a pinned revision), and when and how to publish.
// Publishing itself (release.published with its outcomes) is not part of this file yet.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const ATOMICITY_MODES = ['all_or_nothing', 'best_effort'] as const;
export type AtomicityMode = (typeof ATOMICITY_MODES)[number];

export const RELEASE_STATUSES = ['draft', 'scheduled', 'published', 'partially_failed', 'failed'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

/** `{ windows: [{ dow: 0–6 (Sunday = 0), start: 'HH:MM', end: 'HH:MM' }] }`, in UTC. */
export const maintenanceWindowSchema = z.object({
  windows: z.array(z.object({ dow: z.number(), start: z.string(), end: z.string() })),
});
export type MaintenanceWindow = z.infer<typeof maintenanceWindowSchema>;

export const releaseItemKeySchema = z.object({ collection: z.string(), itemId: z.string() });
export type ReleaseItemKey = z.infer<typeof releaseItemKeySchema>;

/** An item of a release: the status it takes on publish, and the revision it publishes (null: the live state then). */
export const releaseItemSchema = releaseItemKeySchema.extend({ targetStatus: z.string(), revisionId: z.string().nullable() });
export type ReleaseItem = z.infer<typeof releaseItemSchema>;

export const releaseChangesSchema = z.object({
  name: z.string().optional(),
  atomicityMode: z.enum(ATOMICITY_MODES).optional(),
  publishAt: z.string().nullable().optional(),
  maintenanceWindow: maintenanceWindowSchema.nullable().optional(),
  /** Set when the change of publishAt moves the release between draft and scheduled. */
  status: z.enum(RELEASE_STATUSES).optional(),
});
export type ReleaseChanges = z.infer<typeof releaseChangesSchema>;

export const releaseEventSchemas = {
  'release.created': z.object({
    releaseId: z.string(),
    name: z.string(),
    atomicityMode: z.enum(ATOMICITY_MODES),
    publishAt: z.string().nullable(),
    maintenanceWindow: maintenanceWindowSchema.nullable(),
    status: z.enum(RELEASE_STATUSES),
    items: z.array(releaseItemSchema),
  }),
  'release.updated': z.object({ releaseId: z.string(), changes: releaseChangesSchema }),
  /** Adds items, or replaces the target status and pin of items already in the release. */
  'release.items_added': z.object({ releaseId: z.string(), items: z.array(releaseItemSchema) }),
  'release.items_removed': z.object({ releaseId: z.string(), items: z.array(releaseItemKeySchema) }),
  'release.deleted': z.object({ releaseId: z.string() }),
};
export type ReleaseEvent = EventOf<typeof releaseEventSchemas>;
