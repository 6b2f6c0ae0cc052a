import { STATUS_LABELS, type ReleaseSummary } from './api.ts';

/** The release's state in words (never by colour alone), with "reverted" when it was. */
export function StatusBadge({ release }: { release: ReleaseSummary }) {
  const tone = release.status === 'published' ? 'ok' : release.status === 'failed' || release.status === 'partially_failed' ? 'bad' : '';
  return (
    <span className="row">
      <span className={`badge ${tone}`}>{STATUS_LABELS[release.status]}</span>
      {release.revertedAt ? <span className="badge">Reverted</span> : null}
    </span>
  );
}
