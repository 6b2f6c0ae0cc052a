// Team commands: create, update (name, description, members), delete.
import { randomUUID } from 'node:crypto';
import { teamDecider, type TeamChanges } from '../../../domain/identity/team.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findTeam, teamNameTaken, unknownUsers, type TeamView } from './queries.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

const nameTaken = () => new AppError('CONFLICT', 'A team with this name already exists', { path: ['body', 'name'] });

async function assertValid(tx: Queryable, siteId: string, teamId: string | null, changes: TeamChanges): Promise<void> {
  if (changes.name !== undefined) {
    await lockUniqueValue(tx, siteId, 'team-name', changes.name.toLowerCase());
    if (await teamNameTaken(tx, siteId, changes.name, teamId)) throw nameTaken();
  }
  const unknown = await unknownUsers(tx, siteId, changes.members ?? []);
  if (unknown.length > 0) throw new AppError('VALIDATION_FAILED', 'No user with this id', { path: ['body', 'members', unknown[0]!] });
}

export async function createTeam(
  context: AppContext,
  siteId: string,
  input: { name: string; description?: string | null; members?: string[] },
  metadata: EventMetadata,
): Promise<TeamView> {
  const teamId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertValid(tx, siteId, null, input);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'team', teamId),
      decider: teamDecider,
      command: { type: 'createTeam', teamId, ...input },
      metadata,
    });
    return (await findTeam(tx, siteId, teamId))!;
  });
}

export async function updateTeam(context: AppContext, siteId: string, teamId: string, changes: TeamChanges, metadata: EventMetadata): Promise<TeamView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findTeam(tx, siteId, teamId))) throw errors.notFound('Team not found');
    await assertValid(tx, siteId, teamId, changes);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'team', teamId),
      decider: teamDecider,
      command: { type: 'updateTeam', changes },
      metadata,
    });
    return (await findTeam(tx, siteId, teamId))!;
  });
}

export async function deleteTeam(context: AppContext, siteId: string, teamId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: streamId(siteId, 'team', teamId), decider: teamDecider, command: { type: 'deleteTeam' }, metadata });
}
