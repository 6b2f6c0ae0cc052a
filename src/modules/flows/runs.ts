// Queuing a run (docs/flows.md "Runs"): the run's stream starts with its input (bounded), then its job
// is queued. Every trigger comes through here: manual, webhook, replay, a schedule, an event (a run id
// derived from the event, so it is queued once), another flow.
import { createHash } from 'node:crypto';
import { flowRunDecider } from '../../../domain/flows/flowRun.ts';
import type { RunTrigger } from '../../../domain/flows/events.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { actorOf, FLOW_USER_PREFIX, type UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { ownerIdentity, roleIdentity } from './queries.ts';
import type { FlowView, RunStarted } from './schemas.ts';

/** Inputs and outputs kept per run and step, in bytes of JSON. */
const MAX_RECORDED_BYTES = 64 * 1024;

export const runStream = (siteId: string, runId: string) => streamId(siteId, 'flow-run', runId);

/** A value as recorded: itself, or `{ truncated: true, bytes }` when its JSON is larger than the bound. */
export function recordable(value: unknown): unknown {
  const json = JSON.stringify(value ?? null);
  const bytes = Buffer.byteLength(json);
  return bytes > MAX_RECORDED_BYTES ? { truncated: true, bytes } : JSON.parse(json);
}

/** A UUID (version 8, RFC 9562) derived from text: the run of an event and a flow has one id, however often it is queued. */
export function derivedRunId(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface RunRequest {
  runId: string;
  flowId: string;
  trigger: RunTrigger;
  input: unknown;
  depth: number;
  dryRun?: boolean;
  replayOf?: string | null;
}

function queuedData(run: RunRequest) {
  return {
    runId: run.runId,
    flowId: run.flowId,
    trigger: run.trigger,
    input: recordable(run.input),
    depth: run.depth,
    dryRun: run.dryRun ?? false,
    replayOf: run.replayOf ?? null,
  };
}

/** Queues the run in the caller's transaction; false when a run of this id exists already (an event's, queued before). */
export async function queueRunIn(tx: Queryable, context: AppContext, siteId: string, run: RunRequest, metadata: EventMetadata): Promise<boolean> {
  try {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: runStream(siteId, run.runId),
      decider: flowRunDecider,
      command: { type: 'queueRun', run: queuedData(run) },
      metadata,
    });
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'CONFLICT') return false;
    throw error;
  }
}

/**
 * Queues many runs of a site through the group commit of stream starts (one transaction, one append
 * and one insert for those that arrive together): the event reactor's path. Answers the ids queued; a
 * run whose id exists already (an event's, queued before) is left out.
 */
export async function queueRunsJointly(context: AppContext, siteId: string, runs: readonly RunRequest[], metadata: EventMetadata): Promise<string[]> {
  const outcomes = await Promise.allSettled(
    runs.map((run) =>
      context.streamStarts.submit(siteId, {
        metadata,
        streams: [
          {
            streamId: runStream(siteId, run.runId),
            event: flowRunDecider.decide({ type: 'queueRun', run: queuedData(run) }, flowRunDecider.initialState())[0]!,
            claimed: true,
            taken: () => new AppError('CONFLICT', 'This run is already queued'),
          },
        ],
      }),
    ),
  );
  const queued: string[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') queued.push(runs[index]!.runId);
    else if (!(outcome.reason instanceof AppError && outcome.reason.code === 'CONFLICT')) throw outcome.reason;
  });
  return queued;
}

/** Queues one run in its own transaction, then its job: what the manual, webhook and replay routes answer. */
export async function queueRun(
  context: AppContext,
  enqueue: (siteId: string, runId: string) => Promise<void>,
  siteId: string,
  run: RunRequest,
  metadata: EventMetadata,
): Promise<RunStarted> {
  const startedAt = await inSiteTransaction(context, siteId, async (tx) => {
    await queueRunIn(tx, context, siteId, run, metadata);
    const [row] = await tx.query<{ started_at: Date }>({ text: 'SELECT started_at FROM flow_runs WHERE site_id = $1 AND id = $2', values: [siteId, run.runId] });
    return row!.started_at.toISOString();
  });
  await enqueue(siteId, run.runId);
  return { runId: run.runId, status: 'queued', startedAt };
}

/**
 * Whom a flow acts as: its `actAs` role, else its owner with the role and admin flag they hold now;
 * null when that role or owner is gone (the run fails, it never falls back to more power).
 */
export async function actingPrincipal(tx: Queryable, siteId: string, flow: FlowView): Promise<UserPrincipal | null> {
  const base = { kind: 'user' as const, sessionId: null, impersonatorId: null, via: 'flow' as const, realm: 'studio' as const };
  if (flow.actAs) {
    const role = await roleIdentity(tx, siteId, flow.actAs.roleId);
    return role ? { ...base, userId: `${FLOW_USER_PREFIX}${flow.id}`, roleId: flow.actAs.roleId, admin: role.admin } : null;
  }
  if (!flow.ownerId) return null;
  const owner = await ownerIdentity(tx, siteId, flow.ownerId);
  return owner ? { ...base, userId: flow.ownerId, roleId: owner.roleId, admin: owner.admin } : null;
}

/** The causation every write of a run carries: the reactor reads it back for the loop guard. */
export const RUN_CAUSATION_PREFIX = 'flow-run:';

export function runMetadata(principal: UserPrincipal, runId: string): EventMetadata {
  return { actor: actorOf(principal), causationId: `${RUN_CAUSATION_PREFIX}${runId}`, correlationId: runId };
}
