// Reviews of the editorial workflow as the API answers them, and finding one item's review (the API
// lists reviews; there is no read of a single one).
import type { SvcClient } from '@svc-cms/sdk';
import { apiJson } from '../../api.ts';

export type ReviewStatus = 'draft' | 'in_review' | 'approved' | 'rejected';

export interface Review {
  collection: string;
  itemId: string;
  status: ReviewStatus;
  reviewerId: string | null;
  authorId: string | null;
  submittedBy: string | null;
  submittedVersion: number | null;
  approvedVersion: number | null;
  reason: string | null;
  lastActorId: string | null;
  updatedAt: string;
}

export const STATUS_LABELS: Record<ReviewStatus, string> = {
  draft: 'Draft',
  in_review: 'In review',
  approved: 'Approved',
  rejected: 'Rejected',
};

export interface ReviewPage {
  data: Review[];
  meta: { total: number; page: number; pageSize: number };
}

export function listReviews(client: SvcClient, query: { status?: ReviewStatus | ''; page: number; limit: number }): Promise<ReviewPage> {
  const params = new URLSearchParams({ page: String(query.page), limit: String(query.limit) });
  if (query.status) params.set('status', query.status);
  return apiJson<ReviewPage>(client, 'GET', `/editorial/reviews?${params.toString()}`);
}

/** The item's review, or null when it was never submitted. */
export async function findReview(client: SvcClient, collection: string, itemId: string): Promise<Review | null> {
  for (let page = 1; ; page += 1) {
    const answer = await listReviews(client, { page, limit: 200 });
    const found = answer.data.find((review) => review.collection === collection && review.itemId === itemId);
    if (found) return found;
    if (page * 200 >= answer.meta.total || answer.data.length === 0) return null;
  }
}
