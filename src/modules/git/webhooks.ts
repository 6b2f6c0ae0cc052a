// The public webhook receiver (docs/integrations.md "Webhook receiver"):
// POST /integrations/git/webhook/:provider/:siteId/:integrationId. A delivery is verified before
// anything else is read: GitHub's X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the
// integration's secret) or GitLab's X-Gitlab-Token, compared in constant time. A missing or bad
// signature, an unknown integration, or one of another site or provider, all answer the same 401.
// A delivery id is handled once: a replay answers 200 with the first outcome and does nothing.
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { GitProvider } from '../../../domain/git/events.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { SITE_ID_PATTERN } from '../../../domain/sites/site.ts';
import { githubPullOf, type PullRequestInfo } from '../../../infra/git/gitHost.ts';
import { inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { announceIncident, raiseIncidentIn } from '../agents/incidents.ts';
import { openWebhookSecret, repositoryFor, runIntegrationCommand } from './handlers.ts';
import { claimDelivery, releaseDelivery } from './deliveryClaims.ts';
import { cachePullRequests } from './hostCache.ts';
import { closePreview, syncPreview } from './previews.ts';
import { deliveryOutcome, findIntegrationOr404, siteIsLive, type IntegrationRow } from './queries.ts';

export interface Delivery {
  provider: string;
  siteId: string;
  integrationId: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

export interface DeliveryAnswer {
  deliveryId: string;
  duplicate: boolean;
  outcome: string;
}

const header = (headers: Delivery['headers'], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const refused = () => errors.unauthenticated('The delivery is not signed for this integration');

/** Equal-length digests compared in constant time, whatever the lengths given. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function signatureVerifies(provider: GitProvider, secret: string, delivery: Delivery): boolean {
  if (provider === 'gitlab') {
    const token = header(delivery.headers, 'x-gitlab-token');
    return token !== undefined && sameSecret(token, secret);
  }
  const signature = header(delivery.headers, 'x-hub-signature-256');
  if (signature === undefined || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(delivery.rawBody, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signature.slice('sha256='.length), 'hex'));
}

/** The integration a delivery is signed for, or a 401 that says nothing of which check failed. */
async function verifiedIntegration(context: AppContext, delivery: Delivery): Promise<IntegrationRow> {
  if (!SITE_ID_PATTERN.test(delivery.siteId) || !isUuid(delivery.integrationId) || (delivery.provider !== 'github' && delivery.provider !== 'gitlab')) throw refused();
  const provider: GitProvider = delivery.provider;
  if (!(await siteIsLive(context, delivery.siteId))) throw refused();
  return context.database.withSiteReads(delivery.siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, delivery.siteId, delivery.integrationId).catch(() => null);
    if (!integration || integration.provider !== provider) throw refused();
    // A secret that does not open (a rotation in between, a key gone) verifies nothing.
    const secret = await openWebhookSecret(context, tx, delivery.siteId, integration).catch(() => null);
    if (secret === null || !signatureVerifies(provider, secret, delivery)) throw refused();
    return integration;
  });
}

const invalidDelivery = (message: string, ...path: (string | number)[]) => new AppError('VALIDATION_ERROR', message, { path });

function deliveryIdOf(provider: GitProvider, headers: Delivery['headers']): string {
  const name = provider === 'github' ? 'x-github-delivery' : 'x-gitlab-event-uuid';
  const id = header(headers, name) ?? (provider === 'gitlab' ? header(headers, 'idempotency-key') : undefined);
  if (id === undefined || !/^[A-Za-z0-9._:-]{1,200}$/.test(id)) throw invalidDelivery(`The delivery has no ${name} header (1 to 200 letters, digits, . _ : -)`, 'headers', name);
  return id;
}

// What a payload may hold is bounded as the cache's columns are: a signed payload is still the
// provider's word on a pull request anyone may open.
const number = z.number().int().positive().max(2_147_483_647);
const sha = z.string().regex(/^[0-9a-f]{7,64}$/, 'a commit sha');
const ref = z.string().min(1).max(255);
const text = z.string().max(1000);
const url = z.string().max(2000);
const date = z
  .string()
  .max(64)
  .refine((value) => !Number.isNaN(Date.parse(value)), 'a date');
const githubRepoRef = z.object({ full_name: z.string().max(300), fork: z.boolean().nullish() }).nullish();

const githubPullSchema = z.object({
  number,
  title: text,
  state: z.string().max(20),
  merged_at: date.nullish(),
  draft: z.boolean().nullish(),
  html_url: url,
  user: z.object({ login: z.string().max(255) }).nullish(),
  head: z.object({ sha, ref, repo: githubRepoRef }),
  base: z.object({ ref, repo: githubRepoRef }),
  created_at: date,
  updated_at: date,
});
const githubPayloads = {
  pull_request: z.object({ action: z.string(), pull_request: githubPullSchema }),
  workflow_run: z.object({
    action: z.string(),
    workflow_run: z.object({
      id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
      name: text.nullish(),
      conclusion: z.string().max(40).nullish(),
      head_sha: sha,
      pull_requests: z.array(z.object({ number })).max(100).nullish(),
    }),
  }),
};
const gitlabPayloads = {
  'Merge Request Hook': z.object({
    user: z.object({ username: z.string().max(255) }).nullish(),
    object_attributes: z.object({
      iid: number,
      title: text,
      action: z.string().max(40).nullish(),
      state: z.string().max(20),
      draft: z.boolean().nullish(),
      url,
      source_branch: ref,
      target_branch: ref,
      source_project_id: z.number().int().nullish(),
      target_project_id: z.number().int().nullish(),
      last_commit: z.object({ id: sha }),
      created_at: date,
      updated_at: date,
    }),
  }),
  'Pipeline Hook': z.object({
    object_attributes: z.object({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER), status: z.string().max(40), sha }),
    merge_request: z.object({ iid: number }).nullish(),
  }),
};

function parsePayload<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalidDelivery(`The payload does not match the event: ${issue.path.join('.')}: ${issue.message}`, 'body', ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
}

/** What a delivery asks for, read from its event and payload. */
type Intent =
  | { kind: 'pull_request'; action: string; pull: PullRequestInfo; closing: boolean; fromFork: boolean }
  | { kind: 'ci_failure'; action: string; runId: string; commit: string; conclusion: string; pullRequest: number | null; name: string }
  | { kind: 'ignored'; action: string | null; pullRequest: number | null };

function readGithub(event: string, body: unknown): Intent {
  if (event === 'pull_request') {
    const { action, pull_request: pr } = parsePayload(githubPayloads.pull_request, body);
    const pull = githubPullOf(pr);
    const fromFork = Boolean(pr.head.repo?.fork) || (pr.head.repo != null && pr.base.repo != null && pr.head.repo.full_name !== pr.base.repo.full_name);
    if (['opened', 'reopened', 'synchronize', 'ready_for_review', 'edited'].includes(action)) return { kind: 'pull_request', action, pull, closing: false, fromFork };
    if (action === 'closed') return { kind: 'pull_request', action, pull, closing: true, fromFork };
    return { kind: 'ignored', action, pullRequest: pr.number };
  }
  if (event === 'workflow_run') {
    const { action, workflow_run: run } = parsePayload(githubPayloads.workflow_run, body);
    const failed = action === 'completed' && ['failure', 'timed_out', 'startup_failure'].includes(run.conclusion ?? '');
    const pullRequest = run.pull_requests?.[0]?.number ?? null;
    if (!failed) return { kind: 'ignored', action, pullRequest };
    return { kind: 'ci_failure', action, runId: String(run.id), commit: run.head_sha, conclusion: run.conclusion!, pullRequest, name: run.name ?? `run ${run.id}` };
  }
  return { kind: 'ignored', action: typeof (body as { action?: unknown })?.action === 'string' ? (body as { action: string }).action : null, pullRequest: null };
}

function readGitlab(event: string, body: unknown): Intent {
  if (event === 'Merge Request Hook') {
    const { object_attributes: mr, user } = parsePayload(gitlabPayloads['Merge Request Hook'], body);
    const action = mr.action ?? 'update';
    const pull: PullRequestInfo = {
      number: mr.iid,
      title: mr.title,
      state: mr.state === 'merged' ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
      draft: mr.draft ?? false,
      author: user?.username ?? null,
      headSha: mr.last_commit.id,
      headRef: mr.source_branch,
      baseRef: mr.target_branch,
      url: mr.url,
      openedAt: new Date(mr.created_at).toISOString(),
      changedAt: new Date(mr.updated_at).toISOString(),
    };
    const fromFork = mr.source_project_id != null && mr.target_project_id != null && mr.source_project_id !== mr.target_project_id;
    if (['open', 'reopen', 'update'].includes(action)) return { kind: 'pull_request', action, pull, closing: false, fromFork };
    if (['close', 'merge'].includes(action)) return { kind: 'pull_request', action, pull, closing: true, fromFork };
    return { kind: 'ignored', action, pullRequest: mr.iid };
  }
  if (event === 'Pipeline Hook') {
    const { object_attributes: pipeline, merge_request } = parsePayload(gitlabPayloads['Pipeline Hook'], body);
    const pullRequest = merge_request?.iid ?? null;
    if (pipeline.status !== 'failed') return { kind: 'ignored', action: pipeline.status, pullRequest };
    return { kind: 'ci_failure', action: pipeline.status, runId: String(pipeline.id), commit: pipeline.sha, conclusion: 'failure', pullRequest, name: `pipeline ${pipeline.id}` };
  }
  return { kind: 'ignored', action: null, pullRequest: null };
}

export async function receiveDelivery(context: AppContext, delivery: Delivery, forgetSite: (siteId: string) => void): Promise<DeliveryAnswer> {
  const integration = await verifiedIntegration(context, delivery);
  const provider = integration.provider;
  const { siteId } = delivery;
  const deliveryId = deliveryIdOf(provider, delivery.headers);
  const seen = await context.database.withSiteReads(siteId, (tx) => deliveryOutcome(tx, siteId, integration.id, deliveryId));
  if (seen !== null) return { deliveryId, duplicate: true, outcome: seen };

  const eventHeader = provider === 'github' ? 'x-github-event' : 'x-gitlab-event';
  const event = header(delivery.headers, eventHeader);
  if (event === undefined || event.length > 100) throw invalidDelivery(`The delivery has no ${eventHeader} header`, 'headers', eventHeader);
  let body: unknown;
  try {
    body = JSON.parse(delivery.rawBody);
  } catch {
    throw invalidDelivery('The delivery body is not JSON', 'body');
  }
  const intent = provider === 'github' ? readGithub(event, body) : readGitlab(event, body);
  const pullRequest = intent.kind === 'pull_request' ? intent.pull.number : intent.pullRequest;
  const commit = intent.kind === 'pull_request' ? intent.pull.headSha : intent.kind === 'ci_failure' ? intent.commit : null;
  const metadata: EventMetadata = {
    actor: { kind: 'system', id: `git:${integration.id}` },
    correlationId: deliveryId,
    ...(commit ? { git: { integrationId: integration.id, commit, pullRequest } } : {}),
  };
  const record = { deliveryId, event, action: intent.action, pullRequest };

  // What changes nothing is answered and not recorded: the log keeps what the integration acted on.
  if (integration.status === 'paused' || intent.kind === 'ignored') {
    return { deliveryId, duplicate: false, outcome: integration.status === 'paused' ? 'ignored_paused' : 'ignored' };
  }
  // Of concurrent copies of one delivery, only the one that claims it acts.
  if (!(await claimDelivery(context.database, siteId, integration.id, deliveryId))) return { deliveryId, duplicate: true, outcome: 'in_progress' };
  try {
    // A copy that claimed and recorded it between our first look and our claim.
    const recorded = await context.database.withSiteReads(siteId, (tx) => deliveryOutcome(tx, siteId, integration.id, deliveryId));
    if (recorded !== null) return { deliveryId, duplicate: true, outcome: recorded };
    if (intent.kind === 'ci_failure') return await recordCiFailure(context, siteId, integration, intent, record, metadata);
    const outcome = await pullRequestEffects(context, siteId, integration, intent, metadata, forgetSite);
    return await recordDelivery(context, siteId, integration.id, { ...record, outcome }, metadata);
  } finally {
    await releaseDelivery(context.database, siteId, integration.id, deliveryId);
  }
}

/** A pull request event's effects: the cache, and the preview site when the integration keeps them. */
async function pullRequestEffects(
  context: AppContext,
  siteId: string,
  integration: IntegrationRow,
  intent: Extract<Intent, { kind: 'pull_request' }>,
  metadata: EventMetadata,
  forgetSite: (siteId: string) => void,
): Promise<string> {
  await context.database.withSite(siteId, (tx) => cachePullRequests(tx, siteId, integration.id, [intent.pull], new Date()));
  if (intent.closing) {
    return (await closePreview(context, siteId, integration.id, intent.pull.number, metadata, forgetSite)) ? 'preview_closed' : 'pull_request_closed';
  }
  if (!integration.sync_config.preview) return 'pull_request_synced';
  const log = (outcome: string, detail: string) => {
    context.logger.info({ site: siteId, integrationId: integration.id, pullRequest: intent.pull.number, outcome, detail }, 'git preview');
    return outcome;
  };
  // A fork's author is anyone: its manifest never makes a site here.
  if (intent.fromFork) return log('preview_skipped', 'the pull request comes from a fork');
  const repository = await context.database.withSiteReads(siteId, (tx) => repositoryFor(context, tx, siteId, integration));
  const preview = await syncPreview(context, siteId, integration.id, repository, integration.sync_config.manifestPath, intent.pull, metadata, forgetSite);
  return preview.detail ? log(preview.outcome, preview.detail) : preview.outcome;
}

type DeliveryRecord = { deliveryId: string; event: string; action: string | null; pullRequest: number | null; outcome: string };

/** Records a delivery once: a concurrent twin that recorded it first makes this one the duplicate. */
async function recordDelivery(context: AppContext, siteId: string, integrationId: string, record: DeliveryRecord, metadata: EventMetadata): Promise<DeliveryAnswer> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'git-delivery', `${integrationId}:${record.deliveryId}`);
    const seen = await deliveryOutcome(tx, siteId, integrationId, record.deliveryId);
    if (seen !== null) return { deliveryId: record.deliveryId, duplicate: true, outcome: seen };
    await runIntegrationCommand(context, tx, siteId, integrationId, { type: 'recordDelivery', delivery: record }, metadata);
    return { deliveryId: record.deliveryId, duplicate: false, outcome: record.outcome };
  });
}

/** A failed CI run: the incident (role git-sync), the `git_ci_failed` entry and the delivery, in one transaction. */
async function recordCiFailure(
  context: AppContext,
  siteId: string,
  integration: IntegrationRow,
  failure: Extract<Intent, { kind: 'ci_failure' }>,
  record: Omit<DeliveryRecord, 'outcome'>,
  metadata: EventMetadata,
): Promise<DeliveryAnswer> {
  const raised = await inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'git-delivery', `${integration.id}:${record.deliveryId}`);
    const seen = await deliveryOutcome(tx, siteId, integration.id, record.deliveryId);
    if (seen !== null) return { answer: { deliveryId: record.deliveryId, duplicate: true, outcome: seen }, incident: null };
    const incident = await raiseIncidentIn(
      context,
      tx,
      siteId,
      randomUUID(),
      {
        role: 'git-sync',
        severity: 'warning',
        title: `CI failed: ${failure.name} on ${integration.repoFullName}`.slice(0, 200),
        detail: `Run ${failure.runId} (${failure.conclusion}) at ${failure.commit}${failure.pullRequest === null ? '' : ` for pull request #${failure.pullRequest}`}. Its log: GET /integrations/git/${integration.id}/ci-runs/${failure.runId}/logs`,
        intentId: null,
        raisedBy: null,
      },
      metadata,
    );
    await runIntegrationCommand(
      context,
      tx,
      siteId,
      integration.id,
      { type: 'recordCiFailure', failure: { runId: failure.runId, commit: failure.commit, pullRequest: failure.pullRequest, conclusion: failure.conclusion, incidentId: incident.id } },
      metadata,
    );
    await runIntegrationCommand(context, tx, siteId, integration.id, { type: 'recordDelivery', delivery: { ...record, outcome: 'ci_failure' } }, metadata);
    return { answer: { deliveryId: record.deliveryId, duplicate: false, outcome: 'ci_failure' }, incident };
  });
  if (raised.incident) await announceIncident(context, siteId, raised.incident, metadata);
  return raised.answer;
}
