// Teams of each site and their members. A deleted user leaves every team.
import type { TeamEvent } from '../domain/identity/team.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { defineProjection } from './projection.ts';

async function replaceMembers(tx: Queryable, siteId: string, teamId: string, members: string[]): Promise<void> {
  await tx.query(sql`DELETE FROM team_members WHERE site_id = ${siteId} AND team_id = ${teamId}`);
  if (members.length === 0) return;
  await tx.query(sql`
    INSERT INTO team_members (site_id, team_id, user_id)
    SELECT ${siteId}, ${teamId}, member FROM unnest(${members}::uuid[]) AS member
    ON CONFLICT DO NOTHING`);
}

export const teamsProjection = defineProjection({
  name: 'teams',
  mode: 'inline',
  eventTypes: ['team.created', 'team.updated', 'team.deleted', 'user.deleted'],
  tables: ['team_members', 'teams'],
  async apply(tx, event) {
    if (event.type === 'user.deleted') {
      await tx.query(sql`DELETE FROM team_members WHERE site_id = ${event.siteId} AND user_id = ${(event.data as { userId: string }).userId}`);
      return;
    }
    const typed = { type: event.type, data: event.data } as TeamEvent;
    switch (typed.type) {
      case 'team.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO teams (site_id, id, name, description, created_at, updated_at)
          VALUES (${event.siteId}, ${d.teamId}, ${d.name}, ${d.description}, ${event.recordedAt}, ${event.recordedAt})`);
        await replaceMembers(tx, event.siteId, d.teamId, d.members);
        return;
      }
      case 'team.updated': {
        const { teamId, changes } = typed.data;
        await tx.query(sql`
          UPDATE teams SET name = coalesce(${changes.name ?? null}::text, name),
                 description = CASE WHEN ${changes.description !== undefined}::boolean THEN ${changes.description ?? null}::text ELSE description END,
                 updated_at = ${event.recordedAt}
           WHERE site_id = ${event.siteId} AND id = ${teamId}`);
        if (changes.members) await replaceMembers(tx, event.siteId, teamId, changes.members);
        return;
      }
      case 'team.deleted':
        await tx.query(sql`DELETE FROM team_members WHERE site_id = ${event.siteId} AND team_id = ${typed.data.teamId}`);
        await tx.query(sql`DELETE FROM teams WHERE site_id = ${event.siteId} AND id = ${typed.data.teamId}`);
        return;
    }
  },
});
