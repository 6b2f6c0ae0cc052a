// Consent and restriction of processing. The service keeps them per user and lets only the user read or
// change their own (/me/consents, /me/restriction): so this screen shows the signed-in user's, which
// they can change; and to site administrators, the site's consent and restriction records as the audit
// log holds them (consent_granted/withdrawn, processing_restriction.applied/lifted), the current state
// of each subject derived from their newest entries.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../session.tsx';
import { ErrorNote, PageHeader, QueryState } from '../../ui/parts.tsx';
import { nameOf, useSiteUsers, type SiteUser } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { CONSENT_TYPES, queryString, when, type AuditEntry, type Consent, type Page, type Restriction } from './api.ts';
import { apiJson } from '../../api.ts';

const LABELS: Record<string, string> = { marketing: 'Marketing', analytics: 'Analytics', personalization: 'Personalization', functional: 'Functional', sale_share: 'Sale or sharing of data' };
const RECORD_ACTIONS = ['consent_granted', 'consent_withdrawn', 'processing_restriction.applied', 'processing_restriction.lifted'];

function OwnConsents() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [version, setVersion] = useState('1');
  const [reason, setReason] = useState('');
  const consents = useQuery({ queryKey: ['me', 'consents'], queryFn: async () => (await apiJson<{ data: Consent[] }>(client, 'GET', '/me/consents')).data });
  const restriction = useQuery({ queryKey: ['me', 'restriction'], queryFn: async () => (await apiJson<{ data: Restriction }>(client, 'GET', '/me/restriction')).data });
  const setConsent = useMutation({
    mutationFn: ({ type, granted }: { type: string; granted: boolean }) => apiJson(client, 'PUT', `/me/consents/${type}`, { granted, source: 'studio', version }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['me', 'consents'] }).then(() => queryClient.invalidateQueries({ queryKey: ['compliance', 'consent-records'] })),
  });
  const setRestriction = useMutation({
    mutationFn: (restricted: boolean) => apiJson(client, 'PUT', '/me/restriction', restricted ? { restricted, reason: reason.trim() || null } : { restricted }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['me', 'restriction'] }).then(() => queryClient.invalidateQueries({ queryKey: ['compliance', 'consent-records'] })),
  });

  return (
    <div className="stack">
      <h2>Your consents</h2>
      <div className="field">
        <label htmlFor="consent-version">Version of the terms you answer</label>
        <input id="consent-version" value={version} onChange={(event) => setVersion(event.target.value)} />
      </div>
      <ErrorNote error={setConsent.error} />
      <QueryState query={consents} />
      {consents.data ? (
        <table className="data" aria-label="Your consents">
          <thead>
            <tr><th>Purpose</th><th>State</th><th>Since</th><th>Version</th><th>Source</th><th><span className="sr-only">Change</span></th></tr>
          </thead>
          <tbody>
            {CONSENT_TYPES.map((type) => {
              const consent = consents.data.find((candidate) => candidate.consentType === type);
              return (
                <tr key={type}>
                  <td>{LABELS[type]}</td>
                  <td>{consent ? <span className={consent.granted ? 'ok' : 'bad'}>{consent.granted ? 'Granted' : 'Withdrawn'}</span> : <span className="muted">Not given</span>}</td>
                  <td>{consent ? when(consent.granted ? consent.grantedAt : consent.withdrawnAt) : '—'}</td>
                  <td>{consent?.version ?? '—'}</td>
                  <td>{consent?.source ?? '—'}</td>
                  <td>
                    {consent?.granted ? (
                      <button type="button" disabled={setConsent.isPending} onClick={() => setConsent.mutate({ type, granted: false })} aria-label={`Withdraw ${LABELS[type]} consent`}>Withdraw</button>
                    ) : (
                      <button type="button" className="primary" disabled={setConsent.isPending} onClick={() => setConsent.mutate({ type, granted: true })} aria-label={`Grant ${LABELS[type]} consent`}>Grant</button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <h2>Restriction of processing</h2>
      <QueryState query={restriction} />
      <ErrorNote error={setRestriction.error} />
      {restriction.data ? (
        <div className="card stack" aria-label="Your restriction of processing" role="group">
          <p>
            {restriction.data.restricted ? (
              <strong className="bad">Processing of your data is restricted since {when(restriction.data.restrictedAt)}{restriction.data.reason ? ` (${restriction.data.reason})` : ''}.</strong>
            ) : (
              <strong className="ok">Processing of your data is not restricted.</strong>
            )}
          </p>
          {restriction.data.restricted ? (
            <div className="row">
              <button type="button" onClick={() => setRestriction.mutate(false)} disabled={setRestriction.isPending}>Lift the restriction</button>
            </div>
          ) : (
            <div className="row">
              <div className="field">
                <label htmlFor="restriction-reason">Reason (optional)</label>
                <input id="restriction-reason" value={reason} onChange={(event) => setReason(event.target.value)} />
              </div>
              <button type="button" className="danger" onClick={() => setRestriction.mutate(true)} disabled={setRestriction.isPending}>Restrict processing</button>
            </div>
          )}
        </div>
      ) : null}
    </div>
  );
}

interface SubjectState {
  userId: string;
  consents: Record<string, { granted: boolean; version: string; at: string }>;
  restricted: { restricted: boolean; at: string } | null;
}

/** The newest entry of each subject's consent types and restriction wins (entries come newest first). */
function subjectStates(entries: AuditEntry[]): SubjectState[] {
  const subjects = new Map<string, SubjectState>();
  for (const entry of entries) {
    const restriction = entry.action.startsWith('processing_restriction.');
    const userId = restriction ? String(entry.details.userId ?? entry.actor.id ?? '') : entry.actor.id ?? '';
    if (!userId) continue;
    const state = subjects.get(userId) ?? { userId, consents: {}, restricted: null };
    subjects.set(userId, state);
    if (restriction) {
      state.restricted ??= { restricted: entry.action === 'processing_restriction.applied', at: entry.occurredAt };
    } else {
      const type = String(entry.details.consentType ?? '');
      if (type && !state.consents[type]) state.consents[type] = { granted: entry.action === 'consent_granted', version: String(entry.details.version ?? ''), at: entry.occurredAt };
    }
  }
  return [...subjects.values()];
}

function SiteRecords({ users }: { users: SiteUser[] }) {
  const { client } = useSession();
  const [subject, setSubject] = useState('');
  const records = useQuery({
    queryKey: ['compliance', 'consent-records', subject],
    queryFn: () =>
      apiJson<Page<AuditEntry>>(client, 'GET', `/audit${queryString({ filter: { action: { _in: RECORD_ACTIONS }, ...(subject ? { actor: { _eq: subject } } : {}) }, limit: 200 })}`),
  });
  const states = records.data ? subjectStates(records.data.data) : [];

  return (
    <div className="stack">
      <h2>Consent and restriction of the site's users</h2>
      <p className="muted">As recorded in the audit log: the newest answer of each user for each purpose.</p>
      <div className="field">
        <label htmlFor="consent-subject">User</label>
        <select id="consent-subject" value={subject} onChange={(event) => setSubject(event.target.value)}>
          <option value="">Every user</option>
          {users.map((user) => (
            <option key={user.id} value={user.id}>{user.email}</option>
          ))}
        </select>
      </div>
      <QueryState query={records} empty={records.data && states.length === 0 ? 'No consent or restriction has been recorded.' : undefined} />
      {states.length > 0 ? (
        <table className="data" aria-label="Consent and restriction by user">
          <thead>
            <tr><th>User</th>{CONSENT_TYPES.map((type) => <th key={type}>{LABELS[type]}</th>)}<th>Restriction</th></tr>
          </thead>
          <tbody>
            {states.map((state) => (
              <tr key={state.userId}>
                <td>{nameOf(users, state.userId)}</td>
                {CONSENT_TYPES.map((type) => {
                  const consent = state.consents[type];
                  return (
                    <td key={type}>
                      {consent ? <span className={consent.granted ? 'ok' : 'bad'} title={`${when(consent.at)}, version ${consent.version}`}>{consent.granted ? 'Granted' : 'Withdrawn'}</span> : <span className="muted">—</span>}
                    </td>
                  );
                })}
                <td>{state.restricted ? (state.restricted.restricted ? <span className="bad">Restricted</span> : 'Lifted') : <span className="muted">None</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

export function ConsentPage() {
  const admin = useAdminState();
  const users = useSiteUsers(admin === true);
  return (
    <section className="stack">
      <PageHeader title="Consent and restriction">
        <p className="muted">Consents and restriction of processing are each person's own: you change yours here.</p>
      </PageHeader>
      <OwnConsents />
      {admin ? <SiteRecords users={users} /> : null}
    </section>
  );
}
