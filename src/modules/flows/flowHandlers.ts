// Flow commands (docs/flows.md "A flow"): each save checks what belongs to the trigger, the cron, and
// for an active flow its graph against the registered operations, then records the whole content with
// the next scheduled run. The webhook token is kept as its hash only.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { assertValidCron, nextCronTime } from '../../../domain/flows/cron.ts';
import type { FlowContent } from '../../../domain/flows/events.ts';
import { flowDecider } from '../../../domain/flows/flow.ts';
import { assertValidGraph, type OperationCatalogue } from '../../../domain/flows/graph.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { withoutUndefined } from '../../../domain/shared/withoutUndefined.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { isSiteUser, type Principal } from '../../auth/principal.ts';
import { handleCommand, handleCommandIn, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findOperation } from './operations/index.ts';
import { findFlow, roleIdentity } from './queries.ts';
import type { CreateFlowBody, FlowView, UpdateFlowBody } from './schemas.ts';

export const flowStream = (siteId: string, flowId: string) => streamId(siteId, 'flow', flowId);

/** The registered operations, as graph validation asks of them. */
const operationCatalogue: OperationCatalogue = {
  has: (key) => findOperation(key) !== undefined,
  checkOptions(key, options) {
    const parsed = findOperation(key)!.options.safeParse(options);
    if (parsed.success) return null;
    const issue = parsed.error.issues[0]!;
    return { path: issue.path.map((part: PropertyKey) => (typeof part === 'symbol' ? String(part) : part)), message: issue.message };
  },
};

/** The trigger options each trigger takes. */
const TRIGGER_KEYS: Record<FlowContent['trigger'], readonly string[]> = {
  event: ['collection', 'action'],
  schedule: ['cron'],
  webhook: [],
  manual: [],
};

/** Checks a flow's whole content as it will be saved; answers its next scheduled run. */
async function checkFlow(tx: Queryable, siteId: string, flow: FlowContent, now: Date): Promise<string | null> {
  const foreign = Object.keys(flow.triggerOptions).find((key) => !TRIGGER_KEYS[flow.trigger].includes(key));
  if (foreign) throw new AppError('VALIDATION_FAILED', `A ${flow.trigger} flow takes no "${foreign}" trigger option`, { path: ['body', 'triggerOptions', foreign] });
  const { cron } = flow.triggerOptions;
  if (cron !== undefined) assertValidCron(cron);
  if (flow.actAs) {
    const unknown = new AppError('VALIDATION_FAILED', 'No role with this id', { path: ['body', 'actAs', 'roleId'] });
    if (!isUuid(flow.actAs.roleId) || !(await roleIdentity(tx, siteId, flow.actAs.roleId))) throw unknown;
  }
  if (flow.status !== 'active') return null;
  if (flow.trigger === 'schedule' && cron === undefined) {
    throw new AppError('CRON_REQUIRED', 'An active schedule flow needs triggerOptions.cron', { path: ['body', 'triggerOptions', 'cron'] });
  }
  assertValidGraph(flow.graph, operationCatalogue);
  return flow.trigger === 'schedule' ? (nextCronTime(cron!, now)?.toISOString() ?? null) : null;
}

export async function createFlow(context: AppContext, siteId: string, principal: Principal, input: CreateFlowBody, metadata: EventMetadata): Promise<FlowView> {
  const flowId = randomUUID();
  const ownerId = isSiteUser(principal) ? principal.userId : null;
  const flow: FlowContent = {
    name: input.name,
    description: input.description ?? null,
    status: input.status ?? 'draft',
    trigger: input.trigger,
    triggerOptions: input.triggerOptions ?? {},
    graph: input.graph ?? { nodes: [], edges: [] },
    actAs: input.actAs ?? null,
  };
  if (ownerId === null && flow.actAs === null) {
    throw new AppError('VALIDATION_FAILED', 'A key bound to a role owns no flow: give the flow a role to act as', { path: ['body', 'actAs'] });
  }
  return inSiteTransaction(context, siteId, async (tx) => {
    const nextRunAt = await checkFlow(tx, siteId, flow, new Date());
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: flowStream(siteId, flowId),
      decider: flowDecider,
      command: { type: 'createFlow', flowId, ownerId, flow, nextRunAt },
      metadata,
    });
    return (await findFlow(tx, siteId, flowId))!;
  });
}

export async function updateFlow(context: AppContext, siteId: string, flowId: string, changes: UpdateFlowBody, metadata: EventMetadata): Promise<FlowView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: flowStream(siteId, flowId), decider: flowDecider, metadata, lock: true });
    const current = opened.state.flow;
    if (opened.state.status !== 'present' || !current) throw errors.notFound('Flow not found');
    const flow: FlowContent = { ...current, ...(withoutUndefined(changes) as Partial<FlowContent>) };
    const next = await checkFlow(tx, siteId, flow, new Date());
    // The next run moves only when the schedule changes (its cron, its status, its trigger); an unrelated edit keeps it.
    const scheduleChanged = flow.status !== current.status || flow.trigger !== current.trigger || flow.triggerOptions.cron !== current.triggerOptions.cron;
    await opened.decide({ type: 'updateFlow', flow, nextRunAt: scheduleChanged ? next : next === null ? null : opened.state.nextRunAt });
    return (await findFlow(tx, siteId, flowId))!;
  });
}

export async function deleteFlow(context: AppContext, siteId: string, flowId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: flowStream(siteId, flowId), decider: flowDecider, command: { type: 'deleteFlow' }, metadata });
}

/** A new webhook token (answered once; only its hash is kept), replacing the old one. */
export async function setFlowToken(context: AppContext, siteId: string, flowId: string, metadata: EventMetadata): Promise<{ token: string }> {
  const token = `svf_${randomToken(32)}`;
  await handleCommand(context, { siteId, streamId: flowStream(siteId, flowId), decider: flowDecider, command: { type: 'setToken', tokenHash: tokenHash(token) }, metadata });
  return { token };
}

export async function clearFlowToken(context: AppContext, siteId: string, flowId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: flowStream(siteId, flowId), decider: flowDecider, command: { type: 'clearToken' }, metadata });
}

/** Whether `token` is the flow's, compared in constant time (over the hashes: equal lengths). */
export function tokenMatches(stored: string, token: string): boolean {
  return timingSafeEqual(Buffer.from(stored, 'utf8'), Buffer.from(tokenHash(token), 'utf8'));
}

