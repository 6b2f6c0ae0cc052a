// Agent roles (docs/agents.md "Agent roles"): the skills and collections an agent acting under a role
// may use. Each save checks its skills against the registry's skills (a name, `<area>.*` or `*`).
import { agentRoleDecider, type AgentRoleContent } from '../../../domain/agents/agentRole.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findAgentRole, type AgentRoleView } from './rolesQueries.ts';
import { isSkillPattern, skillNames } from './rolesSkills.ts';
import { AGENT_ROLE_NAME, type CreateAgentRoleBody, type UpdateAgentRoleBody } from './rolesSchemas.ts';

export const agentRoleStream = (siteId: string, name: string) => streamId(siteId, 'agent-role', name);

function assertSkills(context: AppContext, patterns: readonly string[]): void {
  const skills = skillNames(context);
  patterns.forEach((pattern, index) => {
    if (!isSkillPattern(pattern, skills)) throw new AppError('VALIDATION_FAILED', `No registered skill matches "${pattern}"`, { path: ['body', 'skills', index] });
  });
}

/** A path's role name: one that could never be a role's is 404, like an unknown one. */
export function agentRoleNameOr404(name: string): string {
  if (!AGENT_ROLE_NAME.test(name)) throw errors.notFound('Agent role not found');
  return name;
}

export async function createAgentRole(context: AppContext, siteId: string, input: CreateAgentRoleBody, metadata: EventMetadata): Promise<AgentRoleView> {
  assertSkills(context, input.skills);
  const role: AgentRoleContent = { description: input.description ?? null, skills: [...new Set(input.skills)], collections: [...new Set(input.collections)] };
  await handleCommand(context, {
    siteId,
    streamId: agentRoleStream(siteId, input.name),
    decider: agentRoleDecider,
    command: { type: 'createRole', name: input.name, role },
    metadata,
  });
  return (await context.database.withSiteReads(siteId, (tx) => findAgentRole(tx, siteId, input.name)))!;
}

export async function updateAgentRole(
  context: AppContext,
  siteId: string,
  name: string,
  changes: UpdateAgentRoleBody,
  metadata: EventMetadata,
): Promise<AgentRoleView> {
  agentRoleNameOr404(name);
  if (changes.skills) assertSkills(context, changes.skills);
  const content: Partial<AgentRoleContent> = {
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.skills ? { skills: [...new Set(changes.skills)] } : {}),
    ...(changes.collections ? { collections: [...new Set(changes.collections)] } : {}),
  };
  await handleCommand(context, { siteId, streamId: agentRoleStream(siteId, name), decider: agentRoleDecider, command: { type: 'updateRole', changes: content }, metadata });
  return (await context.database.withSiteReads(siteId, (tx) => findAgentRole(tx, siteId, name)))!;
}

export async function deleteAgentRole(context: AppContext, siteId: string, name: string, metadata: EventMetadata): Promise<void> {
  agentRoleNameOr404(name);
  await handleCommand(context, { siteId, streamId: agentRoleStream(siteId, name), decider: agentRoleDecider, command: { type: 'deleteRole' }, metadata });
}
