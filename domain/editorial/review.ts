// The editorial review of one item: draft → in_review (submit) → approved | rejected; a rejected item
// may be submitted again; an edit of an item in review or approved sends it back to draft (void).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type EditorialEvent, editorialEventSchemas, type ReviewMove, type ReviewStatus } from './events.ts';

export type { EditorialEvent, ReviewStatus };

interface ItemRevision {
  /** The item's version the move is about. */
  itemVersion: number;
  actorId: string | null;
}

export type ReviewCommand =
  | ({ type: 'submit'; collection: string; itemId: string; reviewerId: string | null; authorId: string | null } & ItemRevision)
  | ({ type: 'approve'; requireSeparateReviewer: boolean } & ItemRevision)
  | ({ type: 'reject'; reason: string } & ItemRevision)
  | ({ type: 'void'; reason: string } & ItemRevision);

export interface ReviewState {
  status: ReviewStatus;
  collection: string | null;
  itemId: string | null;
  reviewerId: string | null;
  authorId: string | null;
}

const conflict = (message: string, from: ReviewStatus) => new AppError('CONFLICT', message, { path: [], extensions: { status: from } });

/** The moves each status allows. */
const ALLOWED: Record<ReviewMove, readonly ReviewStatus[]> = {
  submit: ['draft', 'rejected'],
  approve: ['in_review'],
  reject: ['in_review'],
  void: ['in_review', 'approved'],
};
const TARGET: Record<ReviewMove, ReviewStatus> = { submit: 'in_review', approve: 'approved', reject: 'rejected', void: 'draft' };

export const reviewDecider: Decider<ReviewState, ReviewCommand, EditorialEvent> = {
  eventTypes: eventTypesOf(editorialEventSchemas),
  initialState: () => ({ status: 'draft', collection: null, itemId: null, reviewerId: null, authorId: null }),
  evolve(state, event) {
    if (event.type !== 'editorial_transition') return state;
    const d = event.data;
    return { status: d.to, collection: d.collection, itemId: d.itemId, reviewerId: d.reviewerId, authorId: d.authorId };
  },
  decide(command, state) {
    const move = command.type;
    if (!ALLOWED[move].includes(state.status)) {
      if (move === 'void') return [];
      throw conflict(`A review in status "${state.status}" cannot take "${move}"`, state.status);
    }
    if (move === 'approve' && command.requireSeparateReviewer && command.actorId !== null && command.actorId === state.authorId) {
      throw new AppError('PERMISSION_DENIED', 'The author of the reviewed revision cannot approve it (requireSeparateReviewer)', { path: [] });
    }
    const submit = command.type === 'submit' ? command : null;
    return [
      {
        type: 'editorial_transition',
        data: {
          collection: submit?.collection ?? state.collection!,
          itemId: submit?.itemId ?? state.itemId!,
          move,
          from: state.status,
          to: TARGET[move],
          actorId: command.actorId,
          reason: command.type === 'reject' || command.type === 'void' ? command.reason : null,
          reviewerId: submit ? submit.reviewerId : state.reviewerId,
          authorId: submit ? submit.authorId : state.authorId,
          itemVersion: command.itemVersion,
        },
      },
    ];
  },
};
