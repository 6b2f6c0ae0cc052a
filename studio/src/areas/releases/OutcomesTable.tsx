// Per item, what the last publish did: published, skipped (all or nothing rolled it back) or failed,
// with the reason and the service's message, and the versions it moved between.
import type { Outcome } from './api.ts';

export function OutcomesTable({ outcomes, labels }: { outcomes: Outcome[]; labels: Map<string, string> }) {
  return (
    <table className="data" aria-label="Publish outcomes">
      <thead>
        <tr><th>Collection</th><th>Item</th><th>Outcome</th><th>Reason</th><th>Versions</th></tr>
      </thead>
      <tbody>
        {outcomes.map((outcome) => (
          <tr key={`${outcome.collection}/${outcome.itemId}`}>
            <td>{outcome.collection}</td>
            <td>{labels.get(`${outcome.collection}/${outcome.itemId}`) ?? outcome.itemId}</td>
            <td className={outcome.outcome === 'published' ? 'ok' : outcome.outcome === 'failed' ? 'bad' : ''}>{outcome.outcome}</td>
            <td>{outcome.reason ? `${outcome.reason}${outcome.message ? `: ${outcome.message}` : ''}` : '—'}</td>
            <td>{outcome.fromVersion !== undefined && outcome.toVersion !== undefined ? `${outcome.fromVersion} → ${outcome.toVersion}` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
