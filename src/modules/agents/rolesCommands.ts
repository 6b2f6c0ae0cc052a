// The agent roles' commands (the command registry, docs/architecture.md): administrators only. Each
// changes what agents may do, so each is dangerous: an agent acting for an administrator asks first.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { createAgentRole, deleteAgentRole, updateAgentRole } from './roles.ts';
import { createAgentRoleBody, updateAgentRoleBody } from './rolesSchemas.ts';

const createRole = defineCommand({
  name: 'agents.createRole',
  description: 'Create an agent role: the skills (names, <area>.* or *) and collections (names or *) an agent acting under it may use.',
  input: createAgentRoleBody,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => createAgentRole(context, siteId, input, metadata),
});

const updateRole = defineCommand({
  name: 'agents.updateRole',
  description: "Change an agent role's description, skills or collections (each list replaced whole).",
  input: updateAgentRoleBody.safeExtend({ name: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { name, ...changes } = input;
    return updateAgentRole(context, siteId, name, changes, metadata);
  },
});

const deleteRole = defineCommand({
  name: 'agents.deleteRole',
  description: 'Delete an agent role: agents acting under it are refused (SKILL_DENIED) from then on; its autonomy level goes with it.',
  input: z.object({ name: z.string() }).strict(),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteAgentRole(context, siteId, input.name, metadata),
});

export const agentRoleCommands = { createRole, updateRole, deleteRole };
