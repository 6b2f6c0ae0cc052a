// Events of the releases context: a release is a named set of items, each with the status it will
// take when the release is published (optionally a pinned revision), and when and how to publish.
// Publishing appends `release.published` with one outcome per item (and the item versions it moved,
// which a revert restores); a revert appends `release.reverted`.
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

export const OUTCOMES = ['published', 'skipped', 'failed'] as const;
export type OutcomeKind = (typeof OUTCOMES)[number];

/** Why an item was not published (a failed outcome). */
export const OUTCOME_REASONS = ['ITEM_DELETED', 'EDITORIAL_GATE_REQUIRED', 'PERMISSION_DENIED', 'VALIDATION_FAILED', 'RECORD_NOT_FOUND'] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

/** The statuses a publish ends in. */
export const PUBLISH_STATUSES = ['published', 'partially_failed', 'failed'] as const;
export type PublishStatus = (typeof PUBLISH_STATUSES)[number];

export const outcomeSchema = releaseItemKeySchema.extend({
  outcome: z.enum(OUTCOMES),
  reason: z.enum(OUTCOME_REASONS).optional(),
  /** What was refused, in words (the item write's error message). */
  message: z.string().optional(),
  /** A published item: its version before the publish and after it (equal when it already stood so). */
  fromVersion: z.number().int().optional(),
  toVersion: z.number().int().optional(),
});
export type Outcome = z.infer<typeof outcomeSchema>;

/** An item a revert moved back: from the version the release left, to the one restoring the state before it. */
export const revertedItemSchema = releaseItemKeySchema.extend({ fromVersion: z.number().int(), toVersion: z.number().int(), restoredVersion: z.number().int() });
export type RevertedItem = z.infer<typeof revertedItemSchema>;

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
  /** A publish, with its item writes in the same transaction: the status it ended in and each item's outcome. */
  'release.published': z.object({
    releaseId: z.string(),
    status: z.enum(PUBLISH_STATUSES),
    atomicityMode: z.enum(ATOMICITY_MODES),
    /** Who started it: a request, or the scheduler tick. */
    trigger: z.enum(['manual', 'scheduler']),
    outcomes: z.array(outcomeSchema),
  }),
  /** A revert: the items the release published, brought back to their state before it. */
  'release.reverted': z.object({ releaseId: z.string(), forced: z.boolean(), items: z.array(revertedItemSchema) }),
};
export type ReleaseEvent = EventOf<typeof releaseEventSchemas>;
