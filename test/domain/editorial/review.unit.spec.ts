// The review decider, given events / when command / then events.
import { describe, it } from 'vitest';
import type { ReviewMove, ReviewStatus } from '../../../domain/editorial/events.ts';
import { reviewDecider } from '../../../domain/editorial/review.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(reviewDecider);
const author = 'author-1';
const reviewer = 'reviewer-1';
const base = { collection: 'articles', itemId: 'a1', reviewerId: reviewer, authorId: author };
const transition = (move: ReviewMove, from: ReviewStatus, to: ReviewStatus, extra: { actorId?: string | null; reason?: string | null; itemVersion?: number } = {}) => ({
  type: 'editorial_transition' as const,
  data: { ...base, move, from, to, actorId: extra.actorId ?? author, reason: extra.reason ?? null, itemVersion: extra.itemVersion ?? 1 },
});
const submitted = transition('submit', 'draft', 'in_review');
const submit = { type: 'submit' as const, collection: 'articles', itemId: 'a1', reviewerId: reviewer, authorId: author, itemVersion: 1, actorId: author };

describe('review decider', () => {
  it('submits a draft for review with its reviewer, once', () => {
    spec.given([]).when(submit).then([submitted]);
    spec.given([submitted]).when(submit).thenThrows('CONFLICT', 409, []);
  });

  it('approves or rejects only a review in progress', () => {
    spec
      .given([submitted])
      .when({ type: 'approve', requireSeparateReviewer: true, actorId: reviewer, itemVersion: 2 })
      .then([transition('approve', 'in_review', 'approved', { actorId: reviewer, itemVersion: 2 })]);
    spec
      .given([submitted])
      .when({ type: 'reject', reason: 'Sources missing', actorId: reviewer, itemVersion: 1 })
      .then([transition('reject', 'in_review', 'rejected', { actorId: reviewer, reason: 'Sources missing' })]);
    spec.given([]).when({ type: 'approve', requireSeparateReviewer: false, actorId: reviewer, itemVersion: 1 }).thenThrows('CONFLICT', 409);
    spec.given([]).when({ type: 'reject', reason: 'x', actorId: reviewer, itemVersion: 1 }).thenThrows('CONFLICT', 409);
  });

  it('lets the author approve only when the collection does not require a separate reviewer', () => {
    spec.given([submitted]).when({ type: 'approve', requireSeparateReviewer: true, actorId: author, itemVersion: 2 }).thenThrows('PERMISSION_DENIED', 403);
    spec
      .given([submitted])
      .when({ type: 'approve', requireSeparateReviewer: false, actorId: author, itemVersion: 2 })
      .then([transition('approve', 'in_review', 'approved', { itemVersion: 2 })]);
  });

  it('takes a rejected item back for review', () => {
    const rejected = transition('reject', 'in_review', 'rejected', { actorId: reviewer, reason: 'No' });
    spec.given([submitted, rejected]).when({ ...submit, itemVersion: 3 }).then([transition('submit', 'rejected', 'in_review', { itemVersion: 3 })]);
  });

  it('voids a review in progress or an approval on an edit, and ignores an edit of anything else', () => {
    const approved = transition('approve', 'in_review', 'approved', { actorId: reviewer, itemVersion: 2 });
    spec
      .given([submitted, approved])
      .when({ type: 'void', reason: 'edited after approval', actorId: author, itemVersion: 3 })
      .then([transition('void', 'approved', 'draft', { reason: 'edited after approval', itemVersion: 3 })]);
    spec.given([]).when({ type: 'void', reason: 'edited', actorId: author, itemVersion: 3 }).thenNothing();
  });
});
