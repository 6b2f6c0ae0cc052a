// The agent gate's read models give the same rows when rebuilt from the log (truncate + replay): agent
// roles (created, changed, deleted, a name used again), autonomy levels (set by hand, by an approved
// promotion, gone with a deleted role) and promotions (pending, approved, rejected), the constitution's
// draft and versions, and freezes (active and lifted). On a database of the file's own: a rebuild
// rewrites the whole tables.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { agentAutonomyProjection } from '../../../projections/agentAutonomyProjection.ts';
import { agentConstitutionProjection } from '../../../projections/agentConstitutionProjection.ts';
import { agentFreezesProjection } from '../../../projections/agentFreezesProjection.ts';
import { agentRolesProjection } from '../../../projections/agentRolesProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, ok } from './gateSupport.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    agent_roles: await rows(sql`SELECT * FROM agent_roles WHERE site_id = ${siteId} ORDER BY name`),
    agent_autonomy: await rows(sql`SELECT * FROM agent_autonomy WHERE site_id = ${siteId} ORDER BY role`),
    agent_promotions: await rows(sql`SELECT * FROM agent_promotions WHERE site_id = ${siteId} ORDER BY id`),
    agent_constitution_drafts: await rows(sql`SELECT * FROM agent_constitution_drafts WHERE site_id = ${siteId}`),
    agent_constitution_versions: await rows(sql`SELECT * FROM agent_constitution_versions WHERE site_id = ${siteId} ORDER BY version`),
    agent_freezes: await rows(sql`SELECT * FROM agent_freezes WHERE site_id = ${siteId} ORDER BY id`),
  };
}

describe('the agent gate’s read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createAgentSite(service, 'agentrb');
    await createAgentRole(site, { name: 'writer', description: 'Drafts', skills: ['items.list'], collections: ['articles'] });
    await ok(site, 'PATCH', '/agent/roles/writer', 200, { skills: ['items.*'], collections: ['*'] });
    await createAgentRole(site, { name: 'gone' });
    await ok(site, 'PUT', '/agent/autonomy/gone', 200, { level: 'act' });
    await ok(site, 'DELETE', '/agent/roles/gone', 204);
    await createAgentRole(site, { name: 'again' });
    await ok(site, 'DELETE', '/agent/roles/again', 204);
    await createAgentRole(site, { name: 'again', skills: ['items.list'] });
    await ok(site, 'PUT', '/agent/autonomy/again', 200, { level: 'stage' });

    const approved = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'Clean runs' });
    await ok(site, 'POST', `/agent/autonomy/promotions/${approved.id}/decide`, 200, { decision: 'approved', reason: 'Yes' });
    const rejected = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'again', level: 'act', reason: 'Please' });
    await ok(site, 'POST', `/agent/autonomy/promotions/${rejected.id}/decide`, 200, { decision: 'rejected' });
    await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'again', level: 'act', reason: 'Pending' });

    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny items.delete' });
    await ok(site, 'POST', '/agent/constitution/compile', 200);
    await ok(site, 'POST', '/agent/constitution/activate', 201);
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny items.delete\nmax autonomy stage for writer' });
    await ok(site, 'POST', '/agent/constitution/compile', 200);
    await ok(site, 'POST', '/agent/constitution/activate', 201);
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny *' });

    const lifted = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'role', target: 'writer', reason: 'Check' });
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: lifted.id, reason: 'Checked' });
    await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'site', reason: 'Stop' });

    const before = await snapshot(site.siteId);
    expect(before.agent_roles).toHaveLength(2);
    expect(before.agent_autonomy).toHaveLength(2);
    expect(before.agent_promotions).toHaveLength(3);
    expect(before.agent_constitution_versions).toHaveLength(2);
    expect(before.agent_freezes).toHaveLength(2);

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [agentRolesProjection, agentAutonomyProjection, agentConstitutionProjection, agentFreezesProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
