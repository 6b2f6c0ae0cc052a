// Teams of each site and their members. A deleted user leaves every team.
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
  tables: ['team_members', 'teams'],
  handlers: {
    'team.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO teams (site_id, id, name, description, created_at, updated_at)
        VALUES (${event.siteId}, ${d.teamId}, ${d.name}, ${d.description}, ${event.recordedAt}, ${event.recordedAt})`);
      await replaceMembers(tx, event.siteId, d.teamId, d.members);
    },
    'team.updated': async (tx, event) => {
      const { teamId, changes } = event.data;
      await tx.query(sql`
        UPDATE teams SET name = coalesce(${changes.name ?? null}::text, name),
               description = CASE WHEN ${changes.description !== undefined}::boolean THEN ${changes.description ?? null}::text ELSE description END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${teamId}`);
      if (changes.members) await replaceMembers(tx, event.siteId, teamId, changes.members);
    },
    'team.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM team_members WHERE site_id = ${event.siteId} AND team_id = ${event.data.teamId}`);
      await tx.query(sql`DELETE FROM teams WHERE site_id = ${event.siteId} AND id = ${event.data.teamId}`);
    },
    'user.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM team_members WHERE site_id = ${event.siteId} AND user_id = ${event.data.userId}`);
    },
  },
});
