// The area's cache of what the hosting provider answered: pull requests (POST …/pull-requests/refresh
// and the webhooks keep them) and CI logs (a finished run's log does not change). The provider is their
// truth, so no event describes them (projections/readModelOwners.ts); a disconnect clears them.
import type { PullRequestInfo } from '../../../infra/git/gitHost.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface CachedPullRequest extends PullRequestInfo {
  fetchedAt: string;
}

export async function cachePullRequests(tx: Queryable, siteId: string, integrationId: string, pulls: readonly PullRequestInfo[], now: Date): Promise<void> {
  for (const pull of pulls) {
    await tx.query(sql`
      INSERT INTO git_pull_requests (site_id, integration_id, number, title, state, draft, author, head_sha, head_ref, base_ref, url, opened_at, changed_at, fetched_at)
      VALUES (${siteId}, ${integrationId}, ${pull.number}, ${pull.title}, ${pull.state}, ${pull.draft}, ${pull.author}, ${pull.headSha}, ${pull.headRef},
              ${pull.baseRef}, ${pull.url}, ${pull.openedAt}, ${pull.changedAt}, ${now})
      ON CONFLICT (site_id, integration_id, number) DO UPDATE
         SET title = EXCLUDED.title, state = EXCLUDED.state, draft = EXCLUDED.draft, author = EXCLUDED.author, head_sha = EXCLUDED.head_sha,
             head_ref = EXCLUDED.head_ref, base_ref = EXCLUDED.base_ref, url = EXCLUDED.url, opened_at = EXCLUDED.opened_at,
             changed_at = EXCLUDED.changed_at, fetched_at = EXCLUDED.fetched_at`);
  }
}

interface PullRow {
  number: number;
  title: string;
  state: PullRequestInfo['state'];
  draft: boolean;
  author: string | null;
  head_sha: string;
  head_ref: string;
  base_ref: string;
  url: string;
  opened_at: Date;
  changed_at: Date;
  fetched_at: Date;
}

const pullOf = (row: PullRow): CachedPullRequest => ({
  number: row.number,
  title: row.title,
  state: row.state,
  draft: row.draft,
  author: row.author,
  headSha: row.head_sha,
  headRef: row.head_ref,
  baseRef: row.base_ref,
  url: row.url,
  openedAt: row.opened_at.toISOString(),
  changedAt: row.changed_at.toISOString(),
  fetchedAt: row.fetched_at.toISOString(),
});

/** The most recently changed first. */
export async function cachedPullRequests(
  tx: Queryable,
  siteId: string,
  integrationId: string,
  page: { limit: number; page: number },
): Promise<{ pulls: CachedPullRequest[]; total: number }> {
  const rows = await tx.query<PullRow>(sql`
    SELECT number, title, state, draft, author, head_sha, head_ref, base_ref, url, opened_at, changed_at, fetched_at
      FROM git_pull_requests WHERE site_id = ${siteId} AND integration_id = ${integrationId}
     ORDER BY changed_at DESC, number DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM git_pull_requests WHERE site_id = ${siteId} AND integration_id = ${integrationId}`);
  return { pulls: rows.map(pullOf), total: count?.total ?? 0 };
}

/** The pull request whose head is `commit`, when the cache knows one. */
export async function pullRequestsAtCommits(tx: Queryable, siteId: string, commits: readonly string[]): Promise<Map<string, number>> {
  if (commits.length === 0) return new Map();
  const rows = await tx.query<{ head_sha: string; number: number }>(
    sql`SELECT head_sha, number FROM git_pull_requests WHERE site_id = ${siteId} AND head_sha = ANY(${commits}::text[])`,
  );
  return new Map(rows.map((row) => [row.head_sha, row.number]));
}

export interface CachedLog {
  log: string;
  truncated: boolean;
  complete: boolean;
  fetchedAt: string;
}

export async function cachedLog(tx: Queryable, siteId: string, integrationId: string, runId: string): Promise<CachedLog | null> {
  const [row] = await tx.query<{ log: string; truncated: boolean; complete: boolean; fetched_at: Date }>(
    sql`SELECT log, truncated, complete, fetched_at FROM git_ci_logs WHERE site_id = ${siteId} AND integration_id = ${integrationId} AND run_id = ${runId}`,
  );
  return row ? { log: row.log, truncated: row.truncated, complete: row.complete, fetchedAt: row.fetched_at.toISOString() } : null;
}

export async function cacheLog(tx: Queryable, siteId: string, integrationId: string, runId: string, log: CachedLog): Promise<void> {
  await tx.query(sql`
    INSERT INTO git_ci_logs (site_id, integration_id, run_id, log, truncated, complete, fetched_at)
    VALUES (${siteId}, ${integrationId}, ${runId}, ${log.log}, ${log.truncated}, ${log.complete}, ${log.fetchedAt})
    ON CONFLICT (site_id, integration_id, run_id) DO UPDATE
       SET log = EXCLUDED.log, truncated = EXCLUDED.truncated, complete = EXCLUDED.complete, fetched_at = EXCLUDED.fetched_at`);
}

export async function clearHostCache(tx: Queryable, siteId: string, integrationId: string): Promise<void> {
  await tx.query(sql`DELETE FROM git_pull_requests WHERE site_id = ${siteId} AND integration_id = ${integrationId}`);
  await tx.query(sql`DELETE FROM git_ci_logs WHERE site_id = ${siteId} AND integration_id = ${integrationId}`);
}
