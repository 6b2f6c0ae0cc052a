// The shapes of the releases routes: what they take (a refusal is 422 VALIDATION_FAILED with the
// path of the field, the spec's rule for releases) and what they answer.
import { z } from 'zod';
import { ATOMICITY_MODES, OUTCOME_REASONS, OUTCOMES, PUBLISH_STATUSES, RELEASE_STATUSES } from '../../../domain/releases/events.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { pageQuery } from '../../server/routeKit.ts';

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const name = z.string().trim().min(1, 'name is required').max(200);
const shortText = z.string().trim().min(1).max(200);
const publishAt = z.iso.datetime({ offset: true }).nullable();

/** One weekly window, in UTC, within one day (a window across midnight is two windows). */
const windowSchema = z
  .object({
    dow: z.number().int().min(0).max(6),
    start: z.string().regex(HH_MM, 'expected HH:MM'),
    end: z.string().regex(HH_MM, 'expected HH:MM'),
  })
  .strict()
  .refine((window) => window.start < window.end, { message: 'end must be after start', path: ['end'] });
export const maintenanceWindowInput = z.object({ windows: z.array(windowSchema).min(1).max(100) }).strict().nullable();

const itemKeyInput = z.object({ collection: shortText, itemId: shortText }).strict();
export const addItemInput = itemKeyInput.extend({ targetStatus: shortText, revisionId: uuidSchema.optional() }).strict();
export type AddItemInput = z.infer<typeof addItemInput>;
const MAX_ITEMS = 10_000;

export const createReleaseBody = z
  .object({
    name,
    atomicityMode: z.enum(ATOMICITY_MODES).default('all_or_nothing'),
    publishAt: publishAt.default(null),
    maintenanceWindow: maintenanceWindowInput.default(null),
    addItems: z.array(addItemInput).max(MAX_ITEMS).default([]),
  })
  .strict();

export const updateReleaseBody = z
  .object({
    name: name.optional(),
    atomicityMode: z.enum(ATOMICITY_MODES).optional(),
    publishAt: publishAt.optional(),
    maintenanceWindow: maintenanceWindowInput.optional(),
    addItems: z.array(addItemInput).max(MAX_ITEMS).optional(),
    removeItems: z.array(itemKeyInput).max(MAX_ITEMS).optional(),
  })
  .strict();
export type UpdateReleaseBody = z.infer<typeof updateReleaseBody>;

export const listReleasesQuery = pageQuery.extend({
  status: z.enum(RELEASE_STATUSES).optional(),
});

const releaseItemSchema = z.object({
  collection: z.string(),
  itemId: z.string(),
  targetStatus: z.string(),
  revisionId: z.string().nullable(),
  addedAt: z.string(),
  /** The item's outcome in the release's last publish (null before any). */
  outcome: z.enum(OUTCOMES).nullable(),
  reason: z.enum(OUTCOME_REASONS).nullable(),
});

/** A release as the list answers it; the detail adds its items. */
export const releaseSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(RELEASE_STATUSES),
  atomicityMode: z.enum(ATOMICITY_MODES),
  publishAt: z.string().nullable(),
  maintenanceWindow: z.object({ windows: z.array(z.object({ dow: z.number(), start: z.string(), end: z.string() })) }).nullable(),
  itemCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  publishedAt: z.string().nullable(),
  revertedAt: z.string().nullable(),
});
export const releaseSchema = releaseSummarySchema.extend({ items: z.array(releaseItemSchema) });
export type ReleaseSummaryView = z.infer<typeof releaseSummarySchema>;
export type ReleaseView = z.infer<typeof releaseSchema>;

export const publishReleaseBody = z.object({}).strict().nullish();
export const revertReleaseBody = z.object({ force: z.boolean().default(false) }).strict().nullish();

const outcomeSchema = z.object({
  collection: z.string(),
  itemId: z.string(),
  outcome: z.enum(OUTCOMES),
  reason: z.enum(OUTCOME_REASONS).optional(),
  message: z.string().optional(),
  fromVersion: z.number().optional(),
  toVersion: z.number().optional(),
});
export const publishAnswer = z.object({ data: z.object({ release: releaseSchema, status: z.enum(PUBLISH_STATUSES), outcomes: z.array(outcomeSchema) }) });
export type PublishAnswer = z.infer<typeof publishAnswer>['data'];

export const revertAnswer = z.object({
  data: z.object({
    release: releaseSchema,
    items: z.array(z.object({ collection: z.string(), itemId: z.string(), fromVersion: z.number(), toVersion: z.number(), restoredVersion: z.number() })),
  }),
});
export type RevertAnswer = z.infer<typeof revertAnswer>['data'];
