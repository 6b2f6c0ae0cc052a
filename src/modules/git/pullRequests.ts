// A repository's pull requests (GitLab: merge requests) and their CI: the cached list and its refresh,
// CI runs of a pull request's head, a run's log (cached once the run is finished), and the validation
// of the pull request's config manifest, posted back as the commit status `svc/content-validation`.
import { previewSiteId } from '../../../domain/git/integration.ts';
import { errors } from '../../../domain/shared/appError.ts';
import type { CiRunInfo } from '../../../infra/git/gitHost.ts';
import type { AppContext } from '../../runtime/context.ts';
import { importManifest } from '../config/importManifest.ts';
import { withWebhookTools } from '../config/webhookTools.ts';
import { openRepository } from './handlers.ts';
import { cachedLog, cacheLog, cachedPullRequests, cachePullRequests, type CachedPullRequest } from './hostCache.ts';
import { findIntegrationOr404, type IntegrationRow } from './queries.ts';
import type { PullRequestView, validationResultSchema } from './schemas.ts';
import type { z } from 'zod';

/** How many pull requests a refresh reads (the most recently changed first). */
export const REFRESH_LIMIT = 500;
/** A CI log is kept up to this many bytes (its end is cut). */
export const CI_LOG_LIMIT = 1024 * 1024;
export const STATUS_CONTEXT = 'svc/content-validation';
/** A manifest file is read up to this size (POST /config/import's own limit). */
const MANIFEST_FILE_LIMIT = 16 * 1024 * 1024;

export function pullRequestView(siteId: string, integration: Pick<IntegrationRow, 'sync_config'>, pull: CachedPullRequest): PullRequestView {
  const preview = integration.sync_config.preview && pull.state === 'open' ? previewSiteId(siteId, pull.number) : null;
  return { ...pull, previewSiteId: preview };
}

export async function listPullRequests(context: AppContext, siteId: string, integration: IntegrationRow, page: { limit: number; page: number }) {
  const { pulls, total } = await context.database.withSiteReads(siteId, (tx) => cachedPullRequests(tx, siteId, integration.id, page));
  return { pulls: pulls.map((pull) => pullRequestView(siteId, integration, pull)), total };
}

export async function refreshPullRequests(context: AppContext, siteId: string, integrationId: string): Promise<{ fetched: number }> {
  const { repository } = await openRepository(context, siteId, integrationId);
  const pulls = await repository.pullRequests(REFRESH_LIMIT);
  await context.database.withSite(siteId, (tx) => cachePullRequests(tx, siteId, integrationId, pulls, new Date()));
  return { fetched: pulls.length };
}

async function livePullRequest(context: AppContext, siteId: string, integrationId: string, number: number) {
  const opened = await openRepository(context, siteId, integrationId);
  const pull = await opened.repository.pullRequest(number);
  if (!pull) throw errors.notFound(`Pull request #${number} not found in ${opened.integration.repoFullName}`);
  return { ...opened, pull };
}

export async function pullRequestCiRuns(context: AppContext, siteId: string, integrationId: string, number: number): Promise<CiRunInfo[]> {
  const { repository, pull } = await livePullRequest(context, siteId, integrationId, number);
  return repository.ciRuns(pull.headSha);
}

export async function ciRunLog(context: AppContext, siteId: string, integrationId: string, runId: string) {
  const cached = await context.database.withSiteReads(siteId, async (tx) => {
    await findIntegrationOr404(context, tx, siteId, integrationId);
    return cachedLog(tx, siteId, integrationId, runId);
  });
  if (cached?.complete) return { runId, ...cached, cached: true };
  const { repository } = await openRepository(context, siteId, integrationId);
  const fetched = { ...(await repository.ciLog(runId, CI_LOG_LIMIT)), fetchedAt: new Date().toISOString() };
  await context.database.withSite(siteId, (tx) => cacheLog(tx, siteId, integrationId, runId, fetched));
  return { runId, ...fetched, cached: false };
}

/** The manifest file's JSON at a commit; a missing, oversized or unparsable file is a refusal the commit status tells. */
export async function readManifestAt(
  repository: { readFile(path: string, ref: string): Promise<string | null> },
  path: string,
  commit: string,
  limit = MANIFEST_FILE_LIMIT,
): Promise<{ manifest: unknown } | { problem: string }> {
  const text = await repository.readFile(path, commit);
  if (text === null) return { problem: `${path} not found at ${commit.slice(0, 12)}` };
  if (Buffer.byteLength(text) > limit) return { problem: `${path} is larger than ${limit} bytes` };
  try {
    return { manifest: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `${path} is not JSON: ${(error as Error).message}` };
  }
}

/** A commit status description: at most 140 characters (GitHub's limit). */
const statusText = (text: string) => (text.length <= 140 ? text : `${text.slice(0, 139)}…`);

export async function validatePullRequest(
  context: AppContext,
  siteId: string,
  integrationId: string,
  number: number,
  metadata: Parameters<typeof importManifest>[5],
): Promise<z.infer<typeof validationResultSchema>> {
  const { integration, repository, pull } = await livePullRequest(context, siteId, integrationId, number);
  const manifestPath = integration.sync_config.manifestPath;
  const read = await readManifestAt(repository, manifestPath, pull.headSha);
  const result =
    'problem' in read
      ? { valid: false, errors: [{ code: 'VALIDATION_ERROR', message: read.problem, path: [manifestPath] }], diff: null }
      : await withWebhookTools(context, (tools) => importManifest(context, tools, siteId, read.manifest, { mode: 'merge', dryRun: true, allowDestructive: false }, metadata));
  const description = result.valid
    ? `The config manifest applies to ${siteId} cleanly`
    : statusText(`${result.errors.length} error${result.errors.length === 1 ? '' : 's'}: ${result.errors[0]?.message ?? 'invalid manifest'}`);
  const status = { state: result.valid ? ('success' as const) : ('failure' as const), context: STATUS_CONTEXT as typeof STATUS_CONTEXT, description };
  await repository.postStatus(pull.headSha, status);
  return { pullRequest: number, commit: pull.headSha, manifestPath, valid: result.valid, status, errors: result.errors.map((error) => ({ ...error, path: [...error.path] })), diff: result.diff };
}

