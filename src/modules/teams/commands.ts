// The teams area's commands (the command registry, docs/architecture.md): create, update (name,
// description, members), delete.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createTeam, deleteTeam, updateTeam } from './handlers.ts';
import { teamFields } from './schemas.ts';

export const createTeamBody = teamFields.partial({ description: true, members: true });
export const updateTeamBody = teamFields.partial().strict();

const create = defineCommand({
  name: 'teams.create',
  description: 'Create a team with its members.',
  input: createTeamBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createTeam(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'teams.update',
  description: "Change a team's name, description or members.",
  input: updateTeamBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  // Its members hold the policies attached to the team: a change of members changes access.
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateTeam(context, siteId, uuidOr404(id, 'Team'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'teams.delete',
  description: 'Delete a team.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteTeam(context, siteId, uuidOr404(input.id, 'Team'), metadata),
});

export const teamCommands = { create, update, delete: deleteCommand };
