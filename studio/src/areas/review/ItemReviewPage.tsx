// /collections/$collection/$id/review: one item's editorial review. Its state (and the reason of a
// rejection), then the moves open to it: submit (optionally to a named reviewer), approve, reject with
// a reason. Refusals (the author approving with requireSeparateReviewer, a member without the right)
// are shown as the service words them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { ErrorNote, Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { itemPath, type Json } from '../history/api.ts';
import { apiJson } from '../../api.ts';
import { ValuesTable } from '../history/Diff.tsx';
import { usePersonName, useSiteUsers } from '../history/people.ts';
import { findReview, STATUS_LABELS, type Review } from './reviews.ts';

export function ItemReviewPage() {
  const { collection, id } = useParams({ strict: false }) as { collection: string; id: string };
  const { client } = useSession();
  const queryClient = useQueryClient();
  const personName = usePersonName();
  const users = useSiteUsers();
  const [reviewerId, setReviewerId] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);

  const meta = useQuery({
    queryKey: ['collections', collection, 'meta'],
    retry: false,
    queryFn: async () => (await apiJson<{ data: { meta?: Json | null } }>(client, 'GET', `/collections/${encodeURIComponent(collection)}`)).data.meta ?? {},
  });
  const item = useQuery({
    queryKey: ['review', collection, id, 'item'],
    queryFn: async () => (await apiJson<{ data: Json }>(client, 'GET', itemPath(collection, id))).data,
  });
  const review = useQuery({
    queryKey: ['review', collection, id, 'state'],
    retry: false,
    queryFn: () => findReview(client, collection, id),
  });

  const move = useMutation({
    mutationFn: async ({ action, body }: { action: 'submit-review' | 'approve' | 'reject'; body?: Json }) =>
      (await apiJson<{ data: Review }>(client, 'POST', `/editorial/${encodeURIComponent(collection)}/${encodeURIComponent(id)}/${action}`, body ?? {})).data,
    onSuccess: async (answer, { action }) => {
      setDone(action === 'submit-review' ? 'Submitted for review.' : action === 'approve' ? 'Approved: the item is published.' : 'Rejected.');
      setReason('');
      queryClient.setQueryData(['review', collection, id, 'state'], answer);
      await queryClient.invalidateQueries({ queryKey: ['review', collection, id, 'item'] });
      await queryClient.invalidateQueries({ queryKey: ['reviews'] });
    },
  });
  const errors = formErrors(move.error);
  const lastAction = move.variables?.action;
  const act = (action: 'submit-review' | 'approve' | 'reject', body?: Json) => {
    setDone(null);
    move.mutate(body === undefined ? { action } : { action, body });
  };

  function reject(event: FormEvent) {
    event.preventDefault();
    act('reject', { reason });
  }

  const state = review.data ?? null;
  const status = state?.status ?? null;
  const workflow = meta.data ? meta.data.editorialWorkflow === true : null;
  const canSubmit = status === null || status === 'draft' || status === 'rejected';

  return (
    <section className="stack">
      <PageHeader
        title={`Review of ${collection} item`}
        actions={
          <>
            <Link to="/collections/$collection/$id" params={{ collection, id }}>Edit the item</Link>
            <Link to="/collections/$collection/$id/history" params={{ collection, id }}>History</Link>
            <Link to="/review">Review queue</Link>
          </>
        }
      >
        <p className="muted"><code>{id}</code></p>
      </PageHeader>
      {workflow === false ? <p className="notice">The collection “{collection}” has no editorial workflow: its items are published without review.</p> : null}
      {meta.data?.requireSeparateReviewer === true ? <p className="muted">A reviewer other than the author must approve.</p> : null}

      <div className="card stack" aria-labelledby="review-state-heading">
        <h2 id="review-state-heading">State</h2>
        {review.isPending ? <QueryState query={review} /> : null}
        {review.error ? <ErrorNote error={review.error} /> : null}
        {review.isSuccess ? (
          <p>
            <span className="badge" data-testid="review-status">{status ? STATUS_LABELS[status] : 'Not submitted'}</span>
            {state?.reviewerId ? <> · assigned to {personName(state.reviewerId)}</> : null}
            {state?.submittedBy ? <> · submitted by {personName(state.submittedBy)}</> : null}
            {state ? <> · {new Date(state.updatedAt).toLocaleString()}</> : null}
          </p>
        ) : null}
        {status === 'rejected' && state?.reason ? (
          <p className="alert" data-testid="review-reason">Rejected by {personName(state.lastActorId)}: {state.reason}</p>
        ) : null}
        {done ? <p role="status" className="notice">{done}</p> : null}
        {move.error && lastAction !== 'reject' ? <ErrorNote error={move.error} /> : null}
      </div>

      {canSubmit || review.isError ? (
        <div className="card stack" aria-labelledby="submit-heading">
          <h2 id="submit-heading">Submit for review</h2>
          {users.length > 0 ? (
            <div className="field">
              <label htmlFor="review-reviewer">Reviewer</label>
              <select id="review-reviewer" value={reviewerId} onChange={(event) => setReviewerId(event.target.value)}>
                <option value="">Any reviewer</option>
                {users.map((user) => <option key={user.id} value={user.id}>{user.email}</option>)}
              </select>
            </div>
          ) : null}
          <div className="row">
            <button type="button" className="primary" disabled={move.isPending} onClick={() => act('submit-review', reviewerId ? { reviewerId } : {})}>Submit for review</button>
          </div>
        </div>
      ) : null}

      {status === 'in_review' || review.isError ? (
        <div className="card stack" aria-labelledby="decide-heading">
          <h2 id="decide-heading">Decide</h2>
          <div className="row">
            <button type="button" className="primary" disabled={move.isPending} onClick={() => act('approve')}>Approve and publish</button>
          </div>
          <form className="stack" onSubmit={reject}>
            <Field label="Reason for rejecting" error={lastAction === 'reject' ? errors.fields.reason : undefined} hint="Required; the author sees it on the item.">
              {(fieldId, describedBy) => <textarea id={fieldId} aria-describedby={describedBy} aria-required="true" rows={3} value={reason} onChange={(event) => setReason(event.target.value)} />}
            </Field>
            {lastAction === 'reject' ? errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>) : null}
            <div className="row">
              <button type="submit" className="danger" disabled={move.isPending}>Reject</button>
            </div>
          </form>
        </div>
      ) : null}

      <details open>
        <summary>The item</summary>
        {item.data ? <ValuesTable label="The item" values={item.data} /> : <QueryState query={item} />}
      </details>
    </section>
  );
}
