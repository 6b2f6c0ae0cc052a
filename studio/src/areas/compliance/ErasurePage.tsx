// Erasure under dual control: one administrator asks for the erasure of a collection's records that a
// filter names, with a reason; a second administrator confirms it (the requester cannot); then it is
// executed, and its signed receipt can be read. Each request shows its state.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { ErrorNote, Field, PageHeader, Pager, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, nameOf, useSiteUsers } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { when, type Erasure, type Page } from './api.ts';
import { apiJson } from '../../api.ts';

const PAGE_SIZE = 20;
const STATES: Record<Erasure['status'], string> = { requested: 'Requested: waiting for a second administrator', confirmed: 'Confirmed: ready to execute', executed: 'Executed' };

function RequestForm({ onDone }: { onDone(): void }) {
  const { client } = useSession();
  const collections = useQuery({
    queryKey: ['compliance', 'collections'],
    queryFn: async () => (await apiJson<{ data: { name: string }[] }>(client, 'GET', '/collections')).data,
  });
  const [collection, setCollection] = useState('');
  const [filter, setFilter] = useState('');
  const [reason, setReason] = useState('');
  const [filterError, setFilterError] = useState<string | undefined>();
  const request = useMutation({
    mutationFn: (body: { collection: string; filter: Record<string, unknown>; reason: string }) => apiJson<{ data: Erasure }>(client, 'POST', '/admin/erasure', body),
    onSuccess: () => {
      setFilter('');
      setReason('');
      onDone();
    },
  });
  const errors = formErrors(request.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilterError(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(filter);
    } catch {
      setFilterError('The filter is not valid JSON, e.g. {"email": {"_eq": "someone@example.com"}}');
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setFilterError('The filter is a JSON object of field conditions');
      return;
    }
    request.mutate({ collection, filter: parsed as Record<string, unknown>, reason });
  }

  return (
    <form className="card stack" onSubmit={submit} aria-label="Request an erasure">
      <h2>Request an erasure</h2>
      <Field label="Collection" error={errors.fields.collection}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={collection} onChange={(event) => setCollection(event.target.value)} required>
            <option value="">Choose a collection</option>
            {(collections.data ?? []).map((item) => (
              <option key={item.name} value={item.name}>{item.name}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Subject filter (JSON)" error={filterError ?? errors.fields.filter} hint='The records of the person to erase, e.g. {"email": {"_eq": "someone@example.com"}}'>
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={filter} onChange={(event) => setFilter(event.target.value)} required />}
      </Field>
      <Field label="Reason" error={errors.fields.reason}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={reason} onChange={(event) => setReason(event.target.value)} required />}
      </Field>
      {errors.general.map((message) => (
        <p key={message} role="alert" className="alert">{message}</p>
      ))}
      <div className="row">
        <button type="submit" className="danger" disabled={request.isPending}>Request erasure</button>
      </div>
    </form>
  );
}

export function ErasurePage() {
  const { client, user } = useSession();
  const admin = useAdminState();
  const users = useSiteUsers(admin === true);
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [receiptOf, setReceiptOf] = useState<string | null>(null);
  const erasures = useQuery({
    queryKey: ['compliance', 'erasures', page],
    enabled: admin === true,
    placeholderData: keepPreviousData,
    queryFn: () => apiJson<Page<Erasure>>(client, 'GET', `/admin/erasure?limit=${PAGE_SIZE}&page=${page}`),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['compliance', 'erasures'] });
  const step = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'confirm' | 'execute' }) => apiJson<{ data: Erasure }>(client, 'POST', `/admin/erasure/${id}/${action}`),
    onSettled: refresh,
  });
  const receipt = useQuery({
    queryKey: ['compliance', 'erasure-receipt', receiptOf],
    enabled: receiptOf !== null,
    queryFn: async () => (await apiJson<{ data: unknown }>(client, 'GET', `/admin/erasure/${receiptOf}/receipt`)).data,
  });

  if (admin === false) return <AdminOnly />;

  return (
    <section className="stack">
      <PageHeader title="Erasure requests">
        <p className="muted">Dual control: an erasure requested by one administrator is confirmed by another before it can be executed. Execution cannot be undone.</p>
      </PageHeader>
      <RequestForm onDone={refresh} />
      <h2>Requests</h2>
      <ErrorNote error={step.error} />
      <QueryState query={erasures} empty={erasures.data && erasures.data.data.length === 0 ? 'No erasure has been requested.' : undefined} />
      {erasures.data && erasures.data.data.length > 0 ? (
        <>
          <table className="data" aria-label="Erasure requests">
            <thead>
              <tr><th>State</th><th>Collection</th><th>Reason</th><th>Records</th><th>Requested</th><th>Confirmed</th><th>Executed</th><th>Actions</th></tr>
            </thead>
            <tbody>
              {erasures.data.data.map((erasure) => {
                const mine = erasure.requestedBy === user?.id;
                return (
                  <tr key={erasure.id} data-erasure={erasure.id}>
                    <td><span className={`badge ${erasure.status === 'executed' ? 'ok' : ''}`}>{STATES[erasure.status]}</span></td>
                    <td>{erasure.collection}</td>
                    <td>{erasure.reason}</td>
                    <td>{erasure.status === 'executed' ? `${erasure.recordCount ?? 0} erased, ${erasure.shreddedValues ?? 0} values shredded` : `${erasure.matchedCount} matched`}</td>
                    <td>{nameOf(users, erasure.requestedBy)}{mine ? ' (you)' : ''}<br /><span className="muted">{when(erasure.requestedAt)}</span></td>
                    <td>{erasure.confirmedBy ? <>{nameOf(users, erasure.confirmedBy)}<br /><span className="muted">{when(erasure.confirmedAt)}</span></> : '—'}</td>
                    <td>{erasure.executedBy ? <>{nameOf(users, erasure.executedBy)}<br /><span className="muted">{when(erasure.executedAt)}</span></> : '—'}</td>
                    <td>
                      {erasure.status === 'requested' && mine ? (
                        <div className="stack">
                          <button type="button" disabled aria-describedby={`own-${erasure.id}`}>Confirm</button>
                          <span id={`own-${erasure.id}`} className="muted">You requested this erasure: another administrator must confirm it.</span>
                        </div>
                      ) : null}
                      {erasure.status === 'requested' && !mine ? (
                        <button type="button" className="primary" disabled={step.isPending} onClick={() => step.mutate({ id: erasure.id, action: 'confirm' })} aria-label={`Confirm erasure in ${erasure.collection}: ${erasure.reason}`}>Confirm</button>
                      ) : null}
                      {erasure.status === 'confirmed' ? (
                        <button type="button" className="danger" disabled={step.isPending} onClick={() => step.mutate({ id: erasure.id, action: 'execute' })} aria-label={`Execute erasure in ${erasure.collection}: ${erasure.reason}`}>Execute</button>
                      ) : null}
                      {erasure.status === 'executed' ? (
                        <button type="button" onClick={() => setReceiptOf(erasure.id)} aria-label={`Receipt of erasure in ${erasure.collection}: ${erasure.reason}`}>Receipt</button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager label="Erasure requests pages" count={['entry', 'entries']} page={page} pageSize={PAGE_SIZE} total={erasures.data.meta.total} onPage={setPage} />
        </>
      ) : null}
      {receiptOf !== null ? (
        <section className="card stack" aria-labelledby="receipt-title">
          <div className="spread">
            <h2 id="receipt-title">Signed erasure receipt</h2>
            <button type="button" onClick={() => setReceiptOf(null)}>Close receipt</button>
          </div>
          <p className="muted">Signed with the deployment's key: it proves what was erased, when, and by whom, without naming the subject.</p>
          <QueryState query={receipt} />
          {receipt.data ? <pre aria-label="Receipt" tabIndex={0}>{JSON.stringify(receipt.data, null, 2)}</pre> : null}
        </section>
      ) : null}
    </section>
  );
}
