// /agent/kill-switch over real HTTP (docs/agents.md "Kill switch"): the capability agents:freeze (held
// by administrators, granted to a member or a role's key; others 403); a freeze of each scope refuses
// the matching skill calls at the gate (and through the skill runner: 423) with AGENT_FROZEN (its id
// and scope) and none other; it tells the site (a critical notification); lifting it (once) lets
// calls through again; another site's freezes are 404 and never stop this site's agents.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { UserPrincipal } from '../../../src/auth/principal.ts';
import { checkAgentGate } from '../../../src/modules/agents/agentGate.ts';
import { runSkill } from '../../../src/modules/ai/skillRunner.ts';
import type { AgentIdentity } from '../../../src/modules/ai/skillTypes.ts';
import { createCollection } from '../../support/contentModel.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, expectError, memberWith, ok, roleKey, type AgentSite } from './gateSupport.ts';

const service = await startTestServiceForFile();

const READ = { name: 'items.list', dangerous: false, mutates: false };
const gate = (site: AgentSite, agent: Partial<AgentIdentity> = {}) =>
  checkAgentGate(service.context, { siteId: site.siteId, agent: { id: 'goal:g1', role: null, ...agent }, skill: READ, collections: ['articles'], input: {} });

describe('/agent/kill-switch', () => {
  it('freezes a role: its calls are refused with AGENT_FROZEN, others run; lifted, they run again', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    await createAgentRole(site, { name: 'auditor' });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'act' });
    await ok(site, 'PUT', '/agent/autonomy/auditor', 200, { level: 'act' });
    expect(await gate(site, { role: 'writer' })).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: null });

    const freeze = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'role', target: 'writer', reason: 'Runaway edits' });
    expect(freeze).toMatchObject({ scope: 'role', target: 'writer', reason: 'Runaway edits', frozenBy: site.adminUserId, liftedAt: null });
    expect(await gate(site, { role: 'writer' })).toEqual({
      allowed: false,
      code: 'AGENT_FROZEN',
      message: expect.stringContaining('writer'),
      extensions: { freezeId: freeze.id, scope: 'role', target: 'writer' },
    });
    expect(await gate(site, { role: 'auditor' })).toMatchObject({ allowed: true });
    expect(await gate(site)).toMatchObject({ allowed: true });
    expect(await ok(site, 'GET', '/agent/kill-switch', 200)).toEqual([freeze]);

    const lifted = await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: freeze.id, reason: 'Fixed' });
    expect(lifted).toMatchObject({ id: freeze.id, liftedBy: site.adminUserId, liftReason: 'Fixed' });
    expect(Date.parse(lifted.liftedAt)).not.toBeNaN();
    expect(await gate(site, { role: 'writer' })).toMatchObject({ allowed: true });
    expect(await ok(site, 'GET', '/agent/kill-switch', 200)).toEqual([]);
    expectError(await site.admin('POST', '/agent/kill-switch/lift', { freezeId: freeze.id }), 409, 'CONFLICT');
  });

  it('freezes a run, an intent, or the whole site: each stops exactly its calls', async () => {
    const site = await createAgentSite(service);
    const run = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'run', target: 'run-1', reason: 'Loop' });
    const intent = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'intent', target: 'intent-7', reason: 'Wrong intent' });
    expect(await gate(site, { runId: 'run-1' })).toMatchObject({ allowed: false, code: 'AGENT_FROZEN', extensions: { freezeId: run.id, scope: 'run' } });
    expect(await gate(site, { runId: 'run-2', intentId: 'intent-7' })).toMatchObject({ allowed: false, extensions: { freezeId: intent.id, scope: 'intent' } });
    expect(await gate(site, { runId: 'run-2', intentId: 'intent-8' })).toMatchObject({ allowed: true, autonomy: 'act' });

    const everything = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'site', target: 'ignored', reason: 'Stop everything' });
    expect(everything.target).toBeNull();
    expect(await gate(site, { runId: 'run-2', intentId: 'intent-8' })).toMatchObject({ allowed: false, extensions: { freezeId: everything.id, scope: 'site' } });
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: everything.id });
    expect(await gate(site)).toMatchObject({ allowed: true });
    expect((await ok(site, 'GET', '/agent/kill-switch', 200)).map((freeze: { id: string }) => freeze.id)).toEqual([run.id, intent.id]);
  });

  it('stops a skill call through the skill runner with 423 AGENT_FROZEN, and lets it run once lifted', async () => {
    const site = await createAgentSite(service);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const principal: UserPrincipal = { kind: 'user', userId: site.adminUserId, roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' };
    const call = () =>
      runSkill(service.context, { siteId: site.siteId, principal, agent: { id: 'goal:g1', role: null, runId: 'run-9' }, call: { skill: 'items.list', input: { collection: 'articles' } }, requestId: randomUUID() });
    const freeze = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'run', target: 'run-9', reason: 'Loop' });
    const refused = await call().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'AGENT_FROZEN', status: 423, extensions: { freezeId: freeze.id, scope: 'run', target: 'run-9' } });
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: freeze.id });
    expect(await call()).toMatchObject({ status: 'executed', skill: 'items.list' });
  });

  it('publishes a critical agents.frozen notification for each freeze', async () => {
    const site = await createAgentSite(service);
    const freeze = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'role', target: 'writer', reason: 'Runaway edits' });
    const published = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type = 'notification.published'`),
    );
    expect(published.map((row) => row.data)).toEqual([
      expect.objectContaining({ kind: 'agents.frozen', severity: 'critical', entityId: freeze.id, deepLink: '/agent/kill-switch', body: 'Runaway edits' }),
    ]);
  });

  it('needs agents:freeze: a member without it and a plain role’s key get 403; a member or key holding it may', async () => {
    const site = await createAgentSite(service);
    const plain = await memberWith(site);
    const plainKey = await roleKey(site);
    const freezer = await memberWith(site, ['agents:freeze']);
    const freezerKey = await roleKey(site, { capabilities: ['agents:freeze'] });
    const body = { scope: 'site', reason: 'Stop' };
    for (const token of [plain.token, plainKey]) {
      expectError(await site.as(token, 'POST', '/agent/kill-switch', body), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'GET', '/agent/kill-switch'), 403, 'PERMISSION_DENIED');
    }
    expectError(await site.as(null, 'POST', '/agent/kill-switch', body), 401, 'UNAUTHENTICATED');
    expect(await gate(site)).toMatchObject({ allowed: true });

    const byMember = await ok(site, 'POST', '/agent/kill-switch', 201, body, freezer.token);
    expect(byMember.frozenBy).toBe(freezer.userId);
    expectError(await site.as(plain.token, 'POST', '/agent/kill-switch/lift', { freezeId: byMember.id }), 403, 'PERMISSION_DENIED');
    // A key holding the capability freezes but never lifts: resuming agents is a person's decision.
    const byKey = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'role', target: 'writer', reason: 'Stop' }, freezerKey);
    expectError(await site.as(freezerKey, 'POST', '/agent/kill-switch/lift', { freezeId: byMember.id }), 403, 'PERMISSION_DENIED');
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: byMember.id }, freezer.token);
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: byKey.id }, freezer.token);
    expect(await gate(site)).toMatchObject({ allowed: true });
  });

  it('refuses bad bodies at their field and unknown or another site’s freezes with 404', async () => {
    const site = await createAgentSite(service);
    const other = await createAgentSite(service);
    expectError(await site.admin('POST', '/agent/kill-switch', { scope: 'role', reason: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'target']);
    expectError(await site.admin('POST', '/agent/kill-switch', { scope: 'galaxy', reason: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'scope']);
    expectError(await site.admin('POST', '/agent/kill-switch', { scope: 'site' }), 400, 'VALIDATION_FAILED', ['body', 'reason']);
    expectError(await site.admin('POST', '/agent/kill-switch', { scope: 'site', reason: ' ' }), 400, 'VALIDATION_FAILED', ['body', 'reason']);
    expectError(await site.admin('POST', '/agent/kill-switch/lift', {}), 400, 'VALIDATION_FAILED', ['body', 'freezeId']);
    expect(await ok(site, 'GET', '/agent/kill-switch', 200)).toEqual([]);

    const theirs = await ok(other, 'POST', '/agent/kill-switch', 201, { scope: 'site', reason: 'Theirs' });
    expect(await gate(site)).toMatchObject({ allowed: true });
    expect(await gate(other)).toMatchObject({ allowed: false, code: 'AGENT_FROZEN' });
    for (const freezeId of [theirs.id, randomUUID(), 'nope']) expectError(await site.admin('POST', '/agent/kill-switch/lift', { freezeId }), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/kill-switch', 200)).toEqual([]);
    expect(await gate(other)).toMatchObject({ allowed: false, code: 'AGENT_FROZEN' });
  });
});
