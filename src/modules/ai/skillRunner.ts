// The skill runner: one path for every agent call (the copilot, goals, staged actions, MCP; docs/ai-skills.md).
// A skill is a registry entry flagged `skill`; the runner looks it up, validates the input, asks the
// agent governance (kill switch, agent role, autonomy, constitution), checks the principal's own
// rights (so a skill is the intersection of the role's grants and the principal's, never the union),
// then asks for a person's approval (dangerous), stages it (autonomy `stage`) or runs the command
// with the agent's provenance. Nothing is written before that last step.
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { accessFor, type Access } from '../../access/access.ts';
import { principalMeets } from '../../auth/accessLevels.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import type { AnyCommandDefinition } from '../../runtime/commandRegistry.ts';
import type { AppContext } from '../../runtime/context.ts';
import { checkAgentGate } from '../agents/agentGate.ts';
import { stageSkillCall } from '../agents/stagedActions.ts';
import { publishNotification } from '../realtime/notifications.ts';
import { requestApproval } from './approvalRequest.ts';
import { touchedCollections } from './touchedCollections.ts';
import type { RunSkillOptions, SkillDescriptor, SkillOutcome } from './skillTypes.ts';

/** The skills (registry entries flagged `skill`) the principal may call at all, as agents see them. */
export async function listSkills(context: AppContext, siteId: string, principal: UserPrincipal): Promise<SkillDescriptor[]> {
  const access = await accessFor(context, siteId, principal);
  return context.commands
    .list()
    .filter((command) => command.skill && principalMeets(command.access, principal) && (command.capability === null || access.hasCapability(command.capability)))
    .map((command) => ({
      name: command.name,
      description: command.description,
      inputSchema: command.inputSchema,
      dangerous: command.dangerous,
      mutates: !command.readOnly,
      capability: command.capability,
    }));
}

/**
 * The error the agent API and MCP answer for a call that waits for a person (202 HITL_REQUIRED), with
 * the approval to decide in `extensions` (docs/ai-skills.md).
 */
export function hitlRequired(outcome: Extract<SkillOutcome, { status: 'pending_approval' }>): AppError {
  return new AppError('HITL_REQUIRED', outcome.message, { extensions: { status: outcome.status, skill: outcome.skill, approvalId: outcome.approvalId } });
}

/** The item action a skill of the items area needs on its collection (reads for its queries). */
function itemActionOf(definition: AnyCommandDefinition): 'create' | 'read' | 'update' | 'delete' | null {
  if (!definition.name.startsWith('items.')) return null;
  if (definition.readOnly) return 'read';
  const verb = definition.name.slice('items.'.length);
  return verb === 'create' || verb === 'update' || verb === 'delete' ? verb : null;
}

function skillDenied(message: string, path: (string | number)[] = []): AppError {
  return new AppError('SKILL_DENIED', message, { path });
}

/** What the principal lacks to run the skill itself (its access level, capability, collection permission), or null. */
function missingRight(definition: AnyCommandDefinition, principal: UserPrincipal, access: Access, collection: string | null): string | null {
  if (!principalMeets(definition.access, principal)) return `the "${definition.access}" access level`;
  if (definition.capability && !access.hasCapability(definition.capability)) return `the ${definition.capability} capability`;
  const action = itemActionOf(definition);
  if (action !== null && collection !== null && !access.can(action, collection)) return `${action} permission on "${collection}"`;
  return null;
}

/** The skill's input, parsed by the command's own schema: 400 VALIDATION_FAILED at `input.<path of the first issue>`. */
function parseSkillInput(definition: AnyCommandDefinition, input: unknown): unknown {
  const result = definition.input.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = ['input', ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
  throw new AppError('VALIDATION_FAILED', `${path.join('.')}: ${issue.message}`, { path });
}

/** The metadata of everything the call writes: the agent as the actor, and for whom, approved by whom, under what. */
export function agentMetadata(options: RunSkillOptions, constitutionVersion: number | null): EventMetadata {
  const approval = options.origin?.kind === 'approval' ? options.origin : null;
  return {
    actor: { kind: 'agent', id: options.agent.id },
    requestId: options.requestId,
    agent: {
      onBehalfOf: options.principal.userId,
      approvedBy: approval?.approvedBy ?? null,
      approvalId: approval?.approvalId ?? null,
      role: options.agent.role,
      constitutionVersion,
    },
  };
}

/**
 * Runs one skill call for an agent: the agent gate (kill switch, role, autonomy, constitution), the
 * principal's rights (403 SKILL_DENIED, nothing written), a dangerous skill → a pending approval,
 * a staged autonomy → a staged action, else the command through the registry with agent metadata.
 */
/** The item statuses an agent may set without a person: anything else publishes, schedules or archives content. */
const UNPUBLISHED_STATUSES: ReadonlySet<unknown> = new Set([undefined, null, 'draft']);

/**
 * Whether an item write of an agent changes what readers see: it sets an item's `status` past draft
 * (`items.create` of a published item, `items.update` publishing or archiving one). Such a call is
 * dangerous whatever its command says: an agent never publishes content nobody approved.
 */
export function publishesItems(skill: string, input: Record<string, unknown>): boolean {
  const statusOf = (data: unknown) => (typeof data === 'object' && data !== null ? (data as Record<string, unknown>).status : undefined);
  if (skill === 'items.update') return !UNPUBLISHED_STATUSES.has(statusOf(input.changes));
  if (skill === 'items.create') {
    const items = Array.isArray(input.items) ? input.items : [input.items];
    return items.some((item) => !UNPUBLISHED_STATUSES.has(statusOf(item)));
  }
  return false;
}

export async function runSkill(context: AppContext, options: RunSkillOptions): Promise<SkillOutcome> {
  const { siteId, principal, agent, call } = options;
  const definition = context.commands.find(call.skill);
  if (!definition?.skill) throw new AppError('NOT_FOUND', `No skill "${call.skill}"`, { path: ['skill'] });
  const input = parseSkillInput(definition, call.input);
  const mutates = definition.readOnly !== true;
  const dangerous = definition.dangerous || publishesItems(definition.name, call.input);
  const collection = typeof call.input.collection === 'string' ? call.input.collection : null;

  const collections = touchedCollections(await context.schemas.site(siteId), definition.name, call.input);
  const gate = await checkAgentGate(context, { siteId, agent, skill: { name: definition.name, dangerous, mutates }, collections, input: call.input });
  if (!gate.allowed) throw new AppError(gate.code, gate.message, { extensions: gate.extensions ?? {} });
  if (gate.autonomy === 'read' && mutates) throw skillDenied(`The agent's autonomy is "read": "${definition.name}" writes`);

  const access = await accessFor(context, siteId, principal);
  const missing = missingRight(definition, principal, access, collection);
  if (missing !== null) throw skillDenied(`"${definition.name}" needs ${missing}, which the principal the agent acts for does not hold`);

  const metadata = agentMetadata(options, gate.constitutionVersion);
  // A dangerous call runs only with a person's approval; a staged action never stands in for one.
  if (dangerous && options.origin?.kind !== 'approval') {
    const approvalId = await requestApproval(context, options, access, gate.constitutionVersion, metadata);
    const message = `"${definition.name}" is dangerous: it waits for a person's approval (POST /ai/approvals/${approvalId}/decide)`;
    await publishNotification(
      context,
      siteId,
      { kind: 'ai.approval_pending', severity: 'warning', title: `Approval needed: ${definition.name}`, body: message, deepLink: `/ai/approvals/${approvalId}`, entityId: approvalId },
      metadata,
    );
    return { status: 'pending_approval', skill: definition.name, approvalId, message };
  }
  if (gate.autonomy === 'stage' && mutates && !dangerous && options.origin?.kind !== 'staged') {
    const staged = await stageSkillCall(context, options, gate.constitutionVersion);
    const message = `"${definition.name}" is staged: it runs at ${staged.runAfter} unless a person vetoes it`;
    return { status: 'staged', skill: definition.name, stagedId: staged.stagedId, runAfter: staged.runAfter, message };
  }

  let data: unknown;
  try {
    data = await context.commands.runValidated(definition, input, {
      siteId,
      principal,
      metadata,
      access: () => Promise.resolve(access),
      ...(options.client ? { client: options.client } : {}),
    });
  } catch (error) {
    // A row-level refusal of the handler is the skill's refusal: nothing was written.
    if (error instanceof AppError && error.code === 'PERMISSION_DENIED') throw new AppError('SKILL_DENIED', error.message, { path: error.path, extensions: error.extensions });
    throw error;
  }
  if (dangerous) {
    await publishNotification(
      context,
      siteId,
      {
        kind: 'ai.action_executed',
        severity: 'warning',
        title: `Agent ran ${definition.name}`,
        body: `Approved by ${metadata.agent!.approvedBy ?? 'nobody'}`,
        deepLink: metadata.agent!.approvalId ? `/ai/approvals/${metadata.agent!.approvalId}` : null,
        entityId: metadata.agent!.approvalId,
      },
      metadata,
    );
  }
  return { status: 'executed', skill: definition.name, data };
}
