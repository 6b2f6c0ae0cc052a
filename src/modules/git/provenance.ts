// Provenance (docs/integrations.md "Provenance"): which commit or pull request changed an item. A
// write records it in its events' metadata (`metadata.git`) when a git integration made it (gitops,
// previews) or when the request declared it: X-Svc-Git-Commit (a commit sha), with optional
// X-Svc-Git-Pull-Request and X-Svc-Git-Integration (the site's integration id), which a CI job sends
// when it writes content. GET …/provenance reads the item's stream for them.
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../../domain/shared/appError.ts';
import type { GitProvenance } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { itemStreamId } from '../items/itemStreams.ts';
import { pullRequestsAtCommits } from './hostCache.ts';

/** How many changes an answer lists (the newest first). */
export const PROVENANCE_LIMIT = 100;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const badHeader = (name: string, message: string) => new AppError('VALIDATION_FAILED', message, { path: ['headers', name] });

/** The provenance a request declares, checked; undefined when it declares none. */
export function declaredProvenance(headers: IncomingHttpHeaders): GitProvenance | undefined {
  const commit = one(headers['x-svc-git-commit']);
  const pullRequest = one(headers['x-svc-git-pull-request']);
  const integrationId = one(headers['x-svc-git-integration']);
  if (commit === undefined) {
    if (pullRequest !== undefined || integrationId !== undefined) throw badHeader('x-svc-git-commit', 'X-Svc-Git-Pull-Request and X-Svc-Git-Integration go with X-Svc-Git-Commit');
    return undefined;
  }
  if (!/^[0-9a-f]{7,64}$/.test(commit)) throw badHeader('x-svc-git-commit', 'X-Svc-Git-Commit is a commit sha: 7 to 64 lowercase hex digits');
  if (pullRequest !== undefined && !/^[1-9][0-9]{0,9}$/.test(pullRequest)) throw badHeader('x-svc-git-pull-request', 'X-Svc-Git-Pull-Request is a pull request number');
  if (integrationId !== undefined && !isUuid(integrationId)) throw badHeader('x-svc-git-integration', 'X-Svc-Git-Integration is a git integration id');
  return { integrationId: integrationId ?? null, commit, pullRequest: pullRequest === undefined ? null : Number(pullRequest) };
}

export interface ProvenanceEntry {
  eventId: string;
  type: string;
  version: number;
  recordedAt: string;
  commit: string;
  pullRequest: number | null;
  integrationId: string | null;
  /** `integration`: the integration's own write (gitops, a preview); `declared`: the writing request said so (X-Svc-Git-*), unverified. */
  source: 'integration' | 'declared';
  actor: { kind: string; id: string | null };
}

/** The item's changes that name a commit, newest first; a commit that is a cached pull request's head names that pull request. */
export async function itemProvenance(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<ProvenanceEntry[]> {
  const rows = await tx.query<{ event_id: string; type: string; stream_position: string; recorded_at: Date; actor: ProvenanceEntry['actor']; git: GitProvenance }>(sql`
    SELECT event_id, type, stream_position, recorded_at, metadata->'actor' AS actor, metadata->'git' AS git
      FROM events
     WHERE stream_id = ${itemStreamId(siteId, collection, itemId)} AND site_id = ${siteId} AND metadata ? 'git'
     ORDER BY stream_position DESC LIMIT ${PROVENANCE_LIMIT}`);
  const heads = await pullRequestsAtCommits(tx, siteId, [...new Set(rows.filter((row) => row.git.pullRequest === null).map((row) => row.git.commit))]);
  return rows.map((row) => ({
    eventId: row.event_id,
    type: row.type,
    version: Number(row.stream_position),
    recordedAt: row.recorded_at.toISOString(),
    commit: row.git.commit,
    pullRequest: row.git.pullRequest ?? heads.get(row.git.commit) ?? null,
    integrationId: row.git.integrationId,
    source: row.actor.kind === 'system' && row.actor.id === `git:${row.git.integrationId}` ? 'integration' : 'declared',
    actor: { kind: row.actor.kind, id: row.actor.id ?? null },
  }));
}
