// Verification of the site's log: every stream's hash chain recomputed and the whole log checked against
// its signed checkpoints (GET /audit/verify), shown as one pass or fail with what was checked; and the
// signed checkpoints themselves with the public key that verifies them offline.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { ErrorNote, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly } from './common.tsx';
import { useAdminState } from '../../ui/permissions.ts';
import { when, type CheckpointEntry, type LogVerification, type Page } from './api.ts';
import { apiJson } from '../../api.ts';

type CheckpointPage = Page<CheckpointEntry> & { meta: { publicKey: { keyId: string; algorithm: string; pem: string } } };

export function VerifyPage() {
  const client = useClient();
  const admin = useAdminState();
  const checkpoints = useQuery({
    queryKey: ['compliance', 'checkpoints'],
    enabled: admin === true,
    queryFn: () => apiJson<CheckpointPage>(client, 'GET', '/audit/checkpoints?limit=10'),
  });
  const verify = useMutation({
    mutationFn: async () => (await apiJson<{ data: LogVerification }>(client, 'GET', '/audit/verify')).data,
    onSuccess: () => void checkpoints.refetch(),
  });

  if (admin === false) return <AdminOnly />;
  const result = verify.data;
  const latest = checkpoints.data?.data[0];
  const signatureProblems = result?.checkpoints.problems.filter((problem) => problem.kind === 'bad_signature' || problem.kind === 'checkpoint_mismatch') ?? [];

  return (
    <section className="stack">
      <PageHeader
        title="Verify the log"
        actions={<button type="button" className="primary" onClick={() => verify.mutate()} disabled={verify.isPending}>{verify.isPending ? 'Verifying…' : 'Verify the log'}</button>}
      >
        <p className="muted">Recomputes every event's hash, follows each stream's chain, and checks the log against its signed checkpoints.</p>
      </PageHeader>
      <ErrorNote error={verify.error} />
      {result ? (
        <div className="card stack" role="status" aria-label="Verification result">
          <p className={result.valid ? 'ok' : 'bad'} style={{ fontSize: '1.6rem', fontWeight: 700, margin: 0 }}>
            {result.valid ? '✔ Passed: the log is intact' : '✘ Failed: the log does not match its chains or checkpoints'}
          </p>
          <table className="data" aria-label="What was checked">
            <tbody>
              <tr><th scope="row">Events checked (chain length)</th><td>{result.eventsChecked}</td></tr>
              <tr><th scope="row">Streams checked</th><td>{result.streamsChecked}</td></tr>
              <tr>
                <th scope="row">Hash chains</th>
                <td className={result.firstBrokenLink ? 'bad' : 'ok'}>
                  {result.firstBrokenLink
                    ? `Broken at position ${result.firstBrokenLink.position} (stream ${result.firstBrokenLink.streamId}, #${result.firstBrokenLink.streamPosition}): ${result.firstBrokenLink.reason}`
                    : 'Every link holds'}
                </td>
              </tr>
              <tr><th scope="row">Checkpoints checked</th><td>{result.checkpoints.checked}</td></tr>
              <tr>
                <th scope="row">Last checkpoint</th>
                <td>{result.checkpoints.latestSeq === null ? 'None yet' : `#${result.checkpoints.latestSeq}${latest && latest.seq === result.checkpoints.latestSeq ? `, ${when(latest.createdAt)}, ${latest.eventCount} events` : ''}`}</td>
              </tr>
              <tr>
                <th scope="row">Checkpoint signatures</th>
                <td className={signatureProblems.length > 0 ? 'bad' : 'ok'}>
                  {result.checkpoints.checked === 0 ? 'No checkpoint to check yet' : signatureProblems.length > 0 ? `${signatureProblems.length} invalid` : 'Valid'}
                </td>
              </tr>
              <tr><th scope="row">Executed erasures (records removed on purpose)</th><td>{result.erasures.executed}</td></tr>
            </tbody>
          </table>
          {result.checkpoints.problems.length > 0 ? (
            <>
              <h2>Problems</h2>
              <ul>
                {result.checkpoints.problems.map((problem, index) => (
                  <li key={index}><strong>{problem.kind}</strong> at checkpoint #{problem.checkpointSeq}: {problem.detail}</li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : (
        <p className="notice">Run the verification to see whether the log is intact.</p>
      )}
      <h2>Signed checkpoints</h2>
      <QueryState query={checkpoints} empty={checkpoints.data && checkpoints.data.data.length === 0 ? 'No checkpoint yet: one is taken after enough events or time.' : undefined} />
      {checkpoints.data && checkpoints.data.data.length > 0 ? (
        <>
          <table className="data" aria-label="Signed checkpoints">
            <thead>
              <tr><th>#</th><th>Taken</th><th>Events</th><th>Streams</th><th>Digest</th><th>Key</th></tr>
            </thead>
            <tbody>
              {checkpoints.data.data.map((checkpoint) => (
                <tr key={checkpoint.seq}>
                  <td>{checkpoint.seq}</td>
                  <td>{when(checkpoint.createdAt)}</td>
                  <td>{checkpoint.eventCount}</td>
                  <td>{checkpoint.streamCount}</td>
                  <td><code title={checkpoint.digest}>{checkpoint.digest.slice(0, 16)}…</code></td>
                  <td>{checkpoint.algorithm} {checkpoint.keyId}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <details>
            <summary>Public key ({checkpoints.data.meta.publicKey.algorithm}, {checkpoints.data.meta.publicKey.keyId}) to verify them offline</summary>
            <pre>{checkpoints.data.meta.publicKey.pem}</pre>
          </details>
        </>
      ) : null}
    </section>
  );
}
