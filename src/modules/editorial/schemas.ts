// The shapes of the editorial routes: what they take and answer.
import { z } from 'zod';
import { REVIEW_STATUSES } from '../../../domain/editorial/events.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';

export const reviewSchema = z.object({
  collection: z.string(),
  itemId: z.string(),
  status: z.enum(REVIEW_STATUSES),
  reviewerId: z.string().nullable(),
  authorId: z.string().nullable(),
  submittedBy: z.string().nullable(),
  submittedVersion: z.number().nullable(),
  approvedVersion: z.number().nullable(),
  reason: z.string().nullable(),
  lastActorId: z.string().nullable(),
  updatedAt: z.string(),
});

export const reviewParams = z.object({ collection: z.string(), id: z.string() });
export const submitBody = z.object({ reviewerId: uuidSchema.nullable().optional() }).strict();
export const rejectBody = z.object({ reason: z.string().trim().min(1).max(2000) }).strict();
export const reviewListQuery = z.object({
  status: z.enum(REVIEW_STATUSES).optional(),
  assignee: z.string().max(128).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(25),
  page: z.coerce.number().int().min(1).default(1),
});
