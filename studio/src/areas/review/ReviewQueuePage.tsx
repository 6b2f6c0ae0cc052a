// /review: the editorial review queue. Items awaiting review by default; any other state on demand.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../session.tsx';
import { PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { usePersonName } from '../history/people.ts';
import { listReviews, STATUS_LABELS, type ReviewStatus } from './reviews.ts';

const PAGE_SIZE = 25;

export function ReviewQueuePage() {
  const { client } = useSession();
  const personName = usePersonName();
  const [status, setStatus] = useState<ReviewStatus | ''>('in_review');
  const [page, setPage] = useState(1);
  const reviews = useQuery({
    queryKey: ['reviews', status, page],
    retry: false,
    queryFn: () => listReviews(client, { status, page, limit: PAGE_SIZE }),
  });
  const list = reviews.data?.data ?? [];
  const total = reviews.data?.meta.total ?? 0;

  return (
    <section className="stack">
      <PageHeader title="Review queue">
        <p className="muted">Items of collections with the editorial workflow, newest move first.</p>
      </PageHeader>
      <div className="field">
        <label htmlFor="review-status">Show</label>
        <select id="review-status" value={status} onChange={(event) => { setPage(1); setStatus(event.target.value as ReviewStatus | ''); }}>
          <option value="in_review">Awaiting review</option>
          <option value="rejected">Rejected</option>
          <option value="approved">Approved</option>
          <option value="draft">Back to draft</option>
          <option value="">Every state</option>
        </select>
      </div>
      {reviews.data ? null : <QueryState query={reviews} />}
      {reviews.data && list.length === 0 ? <p className="muted">Nothing here.</p> : null}
      {list.length > 0 ? (
        <table className="data" aria-label="Reviews">
          <thead>
            <tr><th scope="col">Item</th><th scope="col">State</th><th scope="col">Reviewer</th><th scope="col">Submitted by</th><th scope="col">Last move</th><th scope="col">Reason</th></tr>
          </thead>
          <tbody>
            {list.map((review) => (
              <tr key={`${review.collection}/${review.itemId}`}>
                <td>
                  <Link to="/collections/$collection/$id/review" params={{ collection: review.collection, id: review.itemId }}>
                    {review.collection} / {review.itemId}
                  </Link>
                </td>
                <td><span className="badge">{STATUS_LABELS[review.status]}</span></td>
                <td>{review.reviewerId ? personName(review.reviewerId) : <span className="muted">any reviewer</span>}</td>
                <td>{personName(review.submittedBy)}</td>
                <td>{new Date(review.updatedAt).toLocaleString()}</td>
                <td>{review.status === 'rejected' ? review.reason : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {total > PAGE_SIZE ? <Pager label="Review pages" page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} /> : null}
    </section>
  );
}
