// Events of editorial review: one event type, `editorial_transition`, for every move of an item's
// review (submit, approve, reject, and the void of an edit), so that the audit list shows each move
// under that action with its from, to, actor and reason.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const REVIEW_STATUSES = ['draft', 'in_review', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const REVIEW_MOVES = ['submit', 'approve', 'reject', 'void'] as const;
export type ReviewMove = (typeof REVIEW_MOVES)[number];

export const editorialEventSchemas = {
  editorial_transition: z.object({
    collection: z.string(),
    itemId: z.string(),
    move: z.enum(REVIEW_MOVES),
    from: z.enum(REVIEW_STATUSES),
    to: z.enum(REVIEW_STATUSES),
    /** Who moved it (null: the system). */
    actorId: z.string().nullable(),
    reason: z.string().nullable(),
    /** The reviewer assigned at submit (null: any reviewer); kept by later moves. */
    reviewerId: z.string().nullable(),
    /** The last editor of the reviewed revision (the item's userUpdated at submit). */
    authorId: z.string().nullable(),
    /** The item's version the move is about: submitted, approved (after its publish write), or the edit that voided. */
    itemVersion: z.number().int(),
  }),
};
export type EditorialEvent = EventOf<typeof editorialEventSchemas>;
