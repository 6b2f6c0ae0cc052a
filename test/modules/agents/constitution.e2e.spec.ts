// /agent/constitution over real HTTP (docs/agents.md "Constitution"): the draft, compile (a bad line is
// 400 at its number and records nothing), activate (only a compiled draft, once), every version kept,
// the dry run against the draft, the active version or a numbered one; administrators only; another
// site's constitution never seen.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentSite, expectError, memberWith, ok, roleKey } from './gateSupport.ts';

const service = await startTestServiceForFile();

const RULES = ['# house rules', 'deny items.delete on *', 'allow items.* on articles for translator', 'max autonomy stage for translator'].join('\n');

describe('/agent/constitution', () => {
  it('saves a draft, compiles it, activates it as version 1, then a changed draft as version 2; every version stays', async () => {
    const site = await createAgentSite(service);
    expect(await ok(site, 'GET', '/agent/constitution', 200)).toEqual({ active: null, draft: null });
    const draft = await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: RULES });
    expect(draft).toMatchObject({ text: RULES, revision: 1, compiled: false, rules: null, updatedBy: site.adminUserId, compiledAt: null });
    expectError(await site.admin('POST', '/agent/constitution/activate'), 409, 'CONFLICT');

    const compiled = await ok(site, 'POST', '/agent/constitution/compile', 200);
    expect(compiled).toMatchObject({ revision: 1, compiled: true });
    expect(compiled.rules).toEqual([
      { line: 2, text: 'deny items.delete on *', effect: 'deny', skills: ['items.delete'], collections: null, roles: null },
      { line: 3, text: 'allow items.* on articles for translator', effect: 'allow', skills: ['items.*'], collections: ['articles'], roles: ['translator'] },
      { line: 4, text: 'max autonomy stage for translator', effect: 'max_autonomy', level: 'stage', roles: ['translator'] },
    ]);
    const first = await ok(site, 'POST', '/agent/constitution/activate', 201);
    expect(first).toMatchObject({ version: 1, text: RULES, rules: compiled.rules, draftRevision: 1, activatedBy: site.adminUserId });
    expectError(await site.admin('POST', '/agent/constitution/activate'), 409, 'CONFLICT');

    // A changed draft is uncompiled until compiled again; the active version stays.
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny *' });
    expect(await ok(site, 'GET', '/agent/constitution', 200)).toMatchObject({ active: { version: 1 }, draft: { revision: 2, compiled: false, rules: null } });
    expectError(await site.admin('POST', '/agent/constitution/activate'), 409, 'CONFLICT');
    await ok(site, 'POST', '/agent/constitution/compile', 200);
    const second = await ok(site, 'POST', '/agent/constitution/activate', 201);
    expect(second).toMatchObject({ version: 2, text: 'deny *', draftRevision: 2 });

    expect((await ok(site, 'GET', '/agent/constitution', 200)).active).toEqual(second);
    const versions = await site.admin('GET', '/agent/constitution/versions');
    expect(versions.body.data.map((version: { version: number }) => version.version)).toEqual([2, 1]);
    expect(versions.body.meta).toEqual({ total: 2, page: 1, pageSize: 25 });
    expect(await ok(site, 'GET', '/agent/constitution/versions/1', 200)).toEqual(first);
    for (const missing of ['3', '0', 'one', '99999999999']) expectError(await site.admin('GET', `/agent/constitution/versions/${missing}`), 404, 'NOT_FOUND');
  });

  it('refuses a draft line that does not compile with its line number, and records nothing', async () => {
    const site = await createAgentSite(service);
    expectError(await site.admin('POST', '/agent/constitution/compile'), 409, 'CONFLICT');
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny items.delete\n\nallow items.explode on articles' });
    const error = expectError(await site.admin('POST', '/agent/constitution/compile'), 400, 'VALIDATION_FAILED', ['draft', 'text', 3]);
    expect(error.extensions).toEqual({ line: 3, text: 'allow items.explode on articles' });
    expect(error.message).toMatch(/items\.explode/);
    expect((await ok(site, 'GET', '/agent/constitution', 200)).draft).toMatchObject({ revision: 1, compiled: false, rules: null });
    expectError(await site.admin('POST', '/agent/constitution/activate'), 409, 'CONFLICT');
    expectError(await site.admin('PUT', '/agent/constitution/draft', { text: Array.from({ length: 201 }, () => '#').join('\n') }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    expectError(await site.admin('PUT', '/agent/constitution/draft', { text: 42 }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    expectError(await site.admin('PUT', '/agent/constitution/draft', {}), 400, 'VALIDATION_FAILED', ['body', 'text']);
  });

  it('dry-runs a proposed call against the draft, the active version or a numbered one', async () => {
    const site = await createAgentSite(service);
    expectError(await site.admin('POST', '/agent/constitution/dry-run', { skill: 'items.list' }), 404, 'NOT_FOUND');
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: RULES });
    // The draft, compiled for the dry run though not yet compiled.
    expect(await ok(site, 'POST', '/agent/constitution/dry-run', 200, { skill: 'items.delete', collection: 'articles', role: 'translator' })).toEqual({
      source: 'draft',
      version: null,
      decision: 'deny',
      rule: { line: 2, text: 'deny items.delete on *', effect: 'deny' },
      maxAutonomy: 'stage',
    });
    expect(await ok(site, 'POST', '/agent/constitution/dry-run', 200, { skill: 'items.create', collection: 'articles', role: 'translator' })).toMatchObject({
      decision: 'allow',
      rule: { line: 3, effect: 'allow' },
    });
    expect(await ok(site, 'POST', '/agent/constitution/dry-run', 200, { skill: 'items.create' })).toMatchObject({ decision: 'allow', rule: null, maxAutonomy: null });
    expectError(await site.admin('POST', '/agent/constitution/dry-run?version=active', { skill: 'items.list' }), 404, 'NOT_FOUND');

    await ok(site, 'POST', '/agent/constitution/compile', 200);
    await ok(site, 'POST', '/agent/constitution/activate', 201);
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny items.create' });
    expect(await ok(site, 'POST', '/agent/constitution/dry-run', 200, { skill: 'items.create' })).toMatchObject({ source: 'draft', decision: 'deny', rule: { line: 1 } });
    expect(await ok(site, 'POST', '/agent/constitution/dry-run?version=active', 200, { skill: 'items.create' })).toMatchObject({ source: 'version', version: 1, decision: 'allow' });
    expect(await ok(site, 'POST', '/agent/constitution/dry-run?version=1', 200, { skill: 'items.delete' })).toMatchObject({ version: 1, decision: 'deny' });
    expectError(await site.admin('POST', '/agent/constitution/dry-run?version=2', { skill: 'items.list' }), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', '/agent/constitution/dry-run?version=latest', { skill: 'items.list' }), 400, 'VALIDATION_FAILED', ['query', 'version']);
    expectError(await site.admin('POST', '/agent/constitution/dry-run', { skill: 'items.nothing' }), 400, 'VALIDATION_FAILED', ['body', 'skill']);
    expectError(await site.admin('POST', '/agent/constitution/dry-run', {}), 400, 'VALIDATION_FAILED', ['body', 'skill']);
    // A draft that does not compile answers the dry run with its line.
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny nothing.here' });
    expectError(await site.admin('POST', '/agent/constitution/dry-run', { skill: 'items.list' }), 400, 'VALIDATION_FAILED', ['draft', 'text', 1]);
  });

  it('is for administrators only, and never shows another site’s constitution', async () => {
    const site = await createAgentSite(service);
    const other = await createAgentSite(service);
    await ok(other, 'PUT', '/agent/constitution/draft', 200, { text: 'deny *' });
    await ok(other, 'POST', '/agent/constitution/compile', 200);
    await ok(other, 'POST', '/agent/constitution/activate', 201);
    expect(await ok(site, 'GET', '/agent/constitution', 200)).toEqual({ active: null, draft: null });
    expectError(await site.admin('GET', '/agent/constitution/versions/1'), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/constitution/versions', 200)).toEqual([]);

    const member = await memberWith(site, ['agents:freeze']);
    const agentKey = await roleKey(site);
    for (const token of [member.token, agentKey]) {
      expectError(await site.as(token, 'GET', '/agent/constitution'), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'GET', '/agent/constitution/versions'), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'PUT', '/agent/constitution/draft', { text: 'allow *' }), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'POST', '/agent/constitution/compile'), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'POST', '/agent/constitution/dry-run', { skill: 'items.list' }), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'POST', '/agent/constitution/activate'), 403, 'PERMISSION_DENIED');
    }
    expectError(await site.as(null, 'GET', '/agent/constitution'), 401, 'UNAUTHENTICATED');
    expect((await ok(site, 'GET', '/agent/constitution', 200)).draft).toBeNull();
  });
});
