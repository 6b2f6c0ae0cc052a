// The agent gate (src/modules/agents/agentGate.ts) on a real database, as the skill runner asks it
// before every call: the agent role's skills and collections, an unknown role, the active
// constitution's first matching rule (a deny names its line), the autonomy level (the role's, 'read'
// unset, 'act' without a role) capped by `max autonomy`, writes refused at 'read', and what a call reads.
import { describe, expect, it } from 'vitest';
import { checkAgentGate } from '../../../src/modules/agents/agentGate.ts';
import type { AgentGateRequest } from '../../../src/modules/ai/skillTypes.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, ok, type AgentSite } from './gateSupport.ts';

const service = await startTestServiceForFile();

const LIST = { name: 'items.list', dangerous: false, mutates: false };
const CREATE = { name: 'items.create', dangerous: false, mutates: true };
const DELETE = { name: 'items.delete', dangerous: true, mutates: true };
const PUBLISH = { name: 'releases.publish', dangerous: true, mutates: true };

function ask(site: AgentSite, role: string | null, skill: AgentGateRequest['skill'], collection: string | null = 'articles', collections?: AgentGateRequest['collections']) {
  return checkAgentGate(service.context, {
    siteId: site.siteId,
    agent: { id: 'conversation:c1', role },
    skill,
    collections: collections ?? (collection ? [collection] : []),
    input: collection ? { collection } : {},
  });
}

async function activate(site: AgentSite, text: string): Promise<number> {
  await ok(site, 'PUT', '/agent/constitution/draft', 200, { text });
  await ok(site, 'POST', '/agent/constitution/compile', 200);
  return (await ok(site, 'POST', '/agent/constitution/activate', 201)).version;
}

describe('the agent gate', () => {
  it('lets an agent without a role act with its principal’s own grants, under no constitution', async () => {
    const site = await createAgentSite(service);
    expect(await ask(site, null, DELETE)).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: null });
    expect(await ask(site, null, PUBLISH, null)).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: null });
  });

  it('refuses an unknown role, and a skill or collection its role does not cover, with SKILL_DENIED', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer', skills: ['items.list', 'items.create'], collections: ['articles'] });
    await createAgentRole(site, { name: 'editor', skills: ['items.*'], collections: ['*'] });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'act' });
    await ok(site, 'PUT', '/agent/autonomy/editor', 200, { level: 'stage' });

    expect(await ask(site, 'ghost', LIST)).toEqual({ allowed: false, code: 'SKILL_DENIED', message: expect.stringContaining('ghost'), extensions: { role: 'ghost' } });
    expect(await ask(site, 'writer', CREATE)).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: null });
    expect(await ask(site, 'writer', DELETE)).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { role: 'writer', skill: 'items.delete' } });
    expect(await ask(site, 'writer', LIST, 'secrets')).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { role: 'writer', collection: 'secrets' } });
    // Every collection a call reaches is checked: a relation path's, and any at all for a search of every collection.
    expect(await ask(site, 'writer', LIST, 'articles', ['articles', 'authors'])).toMatchObject({ allowed: false, extensions: { collection: 'authors' } });
    expect(await ask(site, 'writer', LIST, null, 'all')).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { collection: '*' } });
    expect(await ask(site, 'editor', LIST, null, 'all')).toMatchObject({ allowed: true });
    // A call naming no collection is not refused for it.
    expect(await ask(site, 'writer', LIST, null)).toMatchObject({ allowed: true });
    expect(await ask(site, 'editor', DELETE, 'secrets')).toEqual({ allowed: true, autonomy: 'stage', constitutionVersion: null });
    expect(await ask(site, 'editor', PUBLISH, null)).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { skill: 'releases.publish' } });
  });

  it('answers the role’s level, read until set; at read, a writing skill is refused and a reading one runs', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'reader', skills: ['items.*'], collections: ['*'] });
    expect(await ask(site, 'reader', LIST)).toEqual({ allowed: true, autonomy: 'read', constitutionVersion: null });
    expect(await ask(site, 'reader', CREATE)).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { autonomy: 'read', skill: 'items.create' } });
    await ok(site, 'PUT', '/agent/autonomy/reader', 200, { level: 'stage' });
    expect(await ask(site, 'reader', CREATE)).toEqual({ allowed: true, autonomy: 'stage', constitutionVersion: null });
  });

  it('applies the active constitution: its first matching rule, a deny naming its line, and its autonomy caps', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'translator', skills: ['*'], collections: ['*'] });
    await ok(site, 'PUT', '/agent/autonomy/translator', 200, { level: 'act' });
    // A draft is not in force.
    await ok(site, 'PUT', '/agent/constitution/draft', 200, { text: 'deny *' });
    expect(await ask(site, 'translator', LIST)).toMatchObject({ allowed: true, constitutionVersion: null });

    const version = await activate(
      site,
      ['allow items.delete on drafts', 'deny items.delete', 'deny * on secrets', 'max autonomy stage for translator', 'max autonomy read for nobody'].join('\n'),
    );
    expect(await ask(site, 'translator', DELETE)).toEqual({
      allowed: false,
      code: 'SKILL_DENIED',
      message: expect.stringContaining('line 2'),
      extensions: { constitutionVersion: version, rule: { line: 2, text: 'deny items.delete' } },
    });
    expect(await ask(site, 'translator', DELETE, 'drafts')).toEqual({ allowed: true, autonomy: 'stage', constitutionVersion: version });
    expect(await ask(site, 'translator', LIST, 'secrets')).toMatchObject({ allowed: false, extensions: { rule: { line: 3 } } });
    // A call reaching secrets through a relation, or any collection (a search of all), meets the same deny.
    expect(await ask(site, 'translator', LIST, 'articles', ['articles', 'secrets'])).toMatchObject({ allowed: false, extensions: { rule: { line: 3 } } });
    expect(await ask(site, 'translator', LIST, null, 'all')).toMatchObject({ allowed: false, extensions: { rule: { line: 3 } } });
    // The constitution binds role-less agents too; a `for` cap does not.
    expect(await ask(site, null, DELETE)).toMatchObject({ allowed: false, code: 'SKILL_DENIED' });
    expect(await ask(site, null, CREATE)).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: version });

    // A cap for everyone applies to role-less agents; at read it stops their writes.
    const next = await activate(site, 'max autonomy read');
    expect(await ask(site, null, LIST)).toEqual({ allowed: true, autonomy: 'read', constitutionVersion: next });
    expect(await ask(site, null, CREATE)).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { autonomy: 'read' } });
  });

  it('never reads another site’s roles, levels, constitution or freezes', async () => {
    const site = await createAgentSite(service);
    const other = await createAgentSite(service);
    await createAgentRole(other, { name: 'writer' });
    await ok(other, 'PUT', '/agent/autonomy/writer', 200, { level: 'act' });
    await activate(other, 'deny *');
    await ok(other, 'POST', '/agent/kill-switch', 201, { scope: 'site', reason: 'Theirs' });
    expect(await ask(site, 'writer', LIST)).toMatchObject({ allowed: false, code: 'SKILL_DENIED', extensions: { role: 'writer' } });
    expect(await ask(site, null, DELETE)).toEqual({ allowed: true, autonomy: 'act', constitutionVersion: null });
  });

  it('reads everything it needs in one statement per call, however long the constitution', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer', skills: ['items.*'], collections: ['*'] });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'act' });
    await activate(site, Array.from({ length: 150 }, (_, index) => `deny items.delete on c${index}`).join('\n'));
    await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'run', target: 'another-run', reason: 'x' });
    // The fewest a call took over a few tries: the daemon may land a statement of its own in one.
    let statements = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round += 1) {
      const before = service.context.database.stats.siteQueries;
      expect((await ask(site, 'writer', CREATE)).allowed).toBe(true);
      statements = Math.min(statements, service.context.database.stats.siteQueries - before);
    }
    expect(statements).toBe(1);
  });
});
