// What a config import plans (or did): validity and errors, the risk, per-resource counts, and
// each change with its properties' before and after.
export interface PlannedChange {
  resource: string;
  action: 'create' | 'update' | 'delete' | 'rename';
  key: string;
  from?: string;
  changes?: Record<string, { from: unknown; to: unknown }>;
  reason?: string;
  destructive?: string;
}

type Counts = { create: number; update: number; unchanged: number; delete: number };

export interface ImportResult {
  valid: boolean;
  errors: { code?: string; message: string; path?: (string | number)[] }[];
  diff: ({ risk: 'low' | 'medium' | 'high'; changes: PlannedChange[] } & Record<string, unknown>) | null;
  applied?: { created: number; updated: number; deleted: number };
}

const show = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));

export function PlanView({ result }: { result: ImportResult }) {
  const diff = result.diff;
  const resources = diff ? Object.entries(diff).filter((entry): entry is [string, Counts] => typeof entry[1] === 'object' && entry[1] !== null && 'create' in entry[1]) : [];
  return (
    <section className="stack" aria-labelledby="plan-heading" aria-live="polite">
      <h3 id="plan-heading">{result.applied ? 'Applied' : 'Plan (dry run)'}</h3>
      {result.applied ? (
        <p role="status" className="ok">
          Applied: {result.applied.created} created, {result.applied.updated} updated, {result.applied.deleted} deleted.
        </p>
      ) : null}
      {result.valid ? null : <p role="alert" className="alert">The manifest is not valid: nothing would be applied.</p>}
      {result.errors.length > 0 ? (
        <ul aria-label="Manifest errors" className="alert">
          {result.errors.map((error, index) => (
            <li key={index}>{error.path?.length ? <code>{error.path.join('.')}</code> : null} {error.message}{error.code ? ` (${error.code})` : ''}</li>
          ))}
        </ul>
      ) : null}
      {diff ? (
        <>
          <p>Risk: <span className={`badge ${diff.risk === 'low' ? 'ok' : 'bad'}`}>{diff.risk}</span></p>
          <table className="data" aria-label="Changes by resource">
            <thead>
              <tr><th>Resource</th><th>Create</th><th>Update</th><th>Delete</th><th>Unchanged</th></tr>
            </thead>
            <tbody>
              {resources.map(([resource, counts]) => (
                <tr key={resource}><th scope="row">{resource}</th><td>{counts.create}</td><td>{counts.update}</td><td>{counts.delete}</td><td>{counts.unchanged}</td></tr>
              ))}
            </tbody>
          </table>
          {diff.changes.length === 0 ? <p className="muted">No changes: the site already matches.</p> : (
            <table className="data" aria-label="Planned changes">
              <thead>
                <tr><th>Change</th><th>Resource</th><th>Key</th><th>Details</th></tr>
              </thead>
              <tbody>
                {diff.changes.map((change, index) => (
                  <tr key={index}>
                    <td><span className={change.action === 'delete' ? 'badge bad' : 'badge'}>{change.action}</span></td>
                    <td>{change.resource}</td>
                    <td><code>{change.from ? `${change.from} → ${change.key}` : change.key}</code></td>
                    <td>
                      {Object.entries(change.changes ?? {}).map(([property, { from, to }]) => (
                        <div key={property}>
                          {property}: <span className="diff-removed">{show(from)}</span> <span className="diff-added">{show(to)}</span>
                        </div>
                      ))}
                      {change.reason ? <div className="muted">{change.reason}</div> : null}
                      {change.destructive ? <div className="bad">Destructive: {change.destructive}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </section>
  );
}
