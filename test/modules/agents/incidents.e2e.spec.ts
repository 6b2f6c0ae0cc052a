// /agent/incidents over real HTTP (docs/agent-goals.md "Incidents"): an agent's key raises one with
// its role (and the command `agents.raiseIncident`, as the integrations area does), every session
// of the site is told (a notification), a site administrator resolves it once; bad bodies 400 with
// their path, another site's ids 404.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import type { UserPrincipal } from '../../../src/auth/principal.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentSite, expectError, ok, roleKey } from './gateSupport.ts';

const service = await startTestServiceForFile();

async function notificationsAbout(siteId: string, entityId: string) {
  return service.context.database.withSiteReads(siteId, (tx) =>
    tx.query<{ data: { kind: string; severity: string; title: string; deepLink: string } }>(
      sql`SELECT data FROM events WHERE site_id = ${siteId} AND type = 'notification.published' AND data->>'entityId' = ${entityId}`,
    ),
  );
}

describe('/agent/incidents', () => {
  it('records an incident an agent raised with its role, tells the site, and resolves it once', async () => {
    const site = await createAgentSite(service, 'incidents');
    const key = await roleKey(site, { capabilities: ['agents:incident'] });
    // Raising one tells every session of the site: a key without the capability may not.
    expectError(await site.as(await roleKey(site), 'POST', '/agent/incidents', { role: 'git-sync', severity: 'critical', title: 'Re-login here' }), 403, 'PERMISSION_DENIED');
    const incident = await ok(site, 'POST', '/agent/incidents', 201, { role: 'git-sync', severity: 'critical', title: 'CI failed on main', detail: 'build 41' }, key);
    expect(incident).toMatchObject({ role: 'git-sync', severity: 'critical', title: 'CI failed on main', detail: 'build 41', status: 'open', intentId: null, resolvedAt: null });
    expect(incident.raisedBy).toMatch(/^apikey:/);
    expect(await notificationsAbout(site.siteId, incident.id)).toEqual([
      { data: expect.objectContaining({ kind: 'agents.incident', severity: 'critical', title: 'Agent incident (git-sync): CI failed on main', deepLink: `/agent/incidents/${incident.id}` }) },
    ]);

    const info = await ok(site, 'POST', '/agent/incidents', 201, { role: 'writer', severity: 'info', title: 'Slow model' });
    expect((await ok(site, 'GET', '/agent/incidents', 200, undefined, key)).map((found: { id: string }) => found.id)).toEqual([info.id, incident.id]);
    expect((await ok(site, 'GET', '/agent/incidents?role=git-sync', 200)).map((found: { id: string }) => found.id)).toEqual([incident.id]);
    expect(await ok(site, 'GET', `/agent/incidents/${incident.id}`, 200, undefined, key)).toEqual(incident);

    expectError(await site.as(key, 'POST', `/agent/incidents/${incident.id}/resolve`, {}), 403, 'PERMISSION_DENIED');
    const resolved = await ok(site, 'POST', `/agent/incidents/${incident.id}/resolve`, 200, { note: 'Fixed the runner' });
    expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: site.adminUserId, resolution: 'Fixed the runner' });
    expectError(await site.admin('POST', `/agent/incidents/${incident.id}/resolve`, {}), 409, 'CONFLICT');
    expect((await ok(site, 'GET', '/agent/incidents?status=open', 200)).map((found: { id: string }) => found.id)).toEqual([info.id]);
  });

  it('is raised through the command registry as the integrations area does', async () => {
    const site = await createAgentSite(service, 'incidents');
    const principal: UserPrincipal = { kind: 'user', userId: site.adminUserId, roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' };
    const incident = await service.context.commands.run<{ id: string; role: string }>(
      'agents.raiseIncident',
      { role: 'git-sync', severity: 'warning', title: 'Merge conflict in content/' },
      { siteId: site.siteId, principal, metadata: { actor: { kind: 'system', id: 'git-sync' }, requestId: randomUUID() } },
    );
    expect(incident.role).toBe('git-sync');
    expect((await ok(site, 'GET', `/agent/incidents/${incident.id}`, 200)).title).toBe('Merge conflict in content/');
  });

  it('refuses bad bodies with their path, and another site’s ids', async () => {
    const site = await createAgentSite(service, 'incidents');
    const elsewhere = await createAgentSite(service, 'incidents');
    expectError(await site.admin('POST', '/agent/incidents', { role: 'x', severity: 'fatal', title: 't' }), 400, 'VALIDATION_FAILED', ['body', 'severity']);
    expectError(await site.admin('POST', '/agent/incidents', { severity: 'info', title: 't' }), 400, 'VALIDATION_FAILED', ['body', 'role']);
    expectError(await site.admin('POST', '/agent/incidents', { role: 'x', severity: 'info', title: 't', intentId: randomUUID() }), 400, 'VALIDATION_FAILED', ['body', 'intentId']);
    expectError(await site.as(null, 'POST', '/agent/incidents', { role: 'x', severity: 'info', title: 't' }), 401, 'UNAUTHENTICATED');
    const foreign = await ok(elsewhere, 'POST', '/agent/incidents', 201, { role: 'x', severity: 'info', title: 'Theirs' });
    expectError(await site.admin('GET', `/agent/incidents/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/agent/incidents/${foreign.id}/resolve`, {}), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/agent/incidents/nope'), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/incidents', 200)).toEqual([]);
  });
});
