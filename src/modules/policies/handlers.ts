// Policy commands: create, update, delete; add and remove permission rules; attach to and detach
// from roles, users and teams.
import { randomUUID } from 'node:crypto';
import { policyDecider, type AttachmentTarget, type PolicyChanges, type PolicyCommand } from '../../../domain/access/policy.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { attachmentTargetExists, findPermission, findPolicy, policyNameTaken, type PermissionView, type PolicyView } from './queries.ts';
import { validateRule, type RuleInput } from './ruleValidation.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

const nameTaken = () => new AppError('CONFLICT', 'A policy with this name already exists', { path: ['body', 'name'] });
const policyNotFound = () => errors.notFound('Policy not found');

async function decide(tx: Queryable, context: AppContext, siteId: string, policyId: string, command: PolicyCommand, metadata: EventMetadata) {
  return handleCommandIn(tx, context.projections, { siteId, streamId: streamId(siteId, 'policy', policyId), decider: policyDecider, command, metadata });
}

export async function createPolicy(
  context: AppContext,
  siteId: string,
  input: { name: string; description?: string | null },
  metadata: EventMetadata,
): Promise<PolicyView> {
  const policyId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'policy-name', input.name.toLowerCase());
    if (await policyNameTaken(tx, siteId, input.name, null)) throw nameTaken();
    await decide(tx, context, siteId, policyId, { type: 'createPolicy', policyId, name: input.name, description: input.description ?? null }, metadata);
    return (await findPolicy(tx, siteId, policyId))!;
  });
}

export async function updatePolicy(context: AppContext, siteId: string, policyId: string, changes: PolicyChanges, metadata: EventMetadata): Promise<PolicyView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPolicy(tx, siteId, policyId))) throw policyNotFound();
    if (changes.name !== undefined) {
      await lockUniqueValue(tx, siteId, 'policy-name', changes.name.toLowerCase());
      if (await policyNameTaken(tx, siteId, changes.name, policyId)) throw nameTaken();
    }
    await decide(tx, context, siteId, policyId, { type: 'updatePolicy', changes }, metadata);
    return (await findPolicy(tx, siteId, policyId))!;
  });
}

export async function deletePolicy(context: AppContext, siteId: string, policyId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, (tx) => decide(tx, context, siteId, policyId, { type: 'deletePolicy' }, metadata));
}

export async function addPermission(context: AppContext, siteId: string, policyId: string, input: RuleInput, metadata: EventMetadata): Promise<PermissionView> {
  const schema = await context.schemas.site(siteId);
  const permissionId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPolicy(tx, siteId, policyId))) throw policyNotFound();
    const rule = validateRule(input, schema, new Date());
    await decide(tx, context, siteId, policyId, { type: 'addPermission', permissionId, rule }, metadata);
    return (await findPermission(tx, siteId, policyId, permissionId))!;
  });
}

/** Removes one rule, or several at once (all or none: an unknown id answers 404 and removes nothing). */
export async function removePermission(
  context: AppContext,
  siteId: string,
  policyId: string,
  permissionIds: string | readonly string[],
  metadata: EventMetadata,
): Promise<void> {
  const ids = [...new Set(typeof permissionIds === 'string' ? [permissionIds] : permissionIds)];
  await inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPolicy(tx, siteId, policyId))) throw policyNotFound();
    for (const permissionId of ids) await decide(tx, context, siteId, policyId, { type: 'removePermission', permissionId }, metadata);
  });
}

const TARGET_FIELDS = { role: 'roleId', user: 'userId', team: 'teamId' } as const;

/** Attaches the policy to a role, user or team (a no-op when already attached). */
export async function attachPolicy(context: AppContext, siteId: string, policyId: string, target: AttachmentTarget, metadata: EventMetadata): Promise<PolicyView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPolicy(tx, siteId, policyId))) throw policyNotFound();
    if (!(await attachmentTargetExists(tx, siteId, target.kind, target.id))) {
      throw new AppError('VALIDATION_FAILED', `No ${target.kind} with this id`, { path: ['body', TARGET_FIELDS[target.kind]] });
    }
    await decide(tx, context, siteId, policyId, { type: 'attachPolicy', target }, metadata);
    return (await findPolicy(tx, siteId, policyId))!;
  });
}

export async function detachPolicy(context: AppContext, siteId: string, policyId: string, target: AttachmentTarget, metadata: EventMetadata): Promise<PolicyView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPolicy(tx, siteId, policyId))) throw policyNotFound();
    await decide(tx, context, siteId, policyId, { type: 'detachPolicy', target }, metadata);
    return (await findPolicy(tx, siteId, policyId))!;
  });
}
