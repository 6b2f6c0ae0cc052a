// The skill runner (docs/ai-skills.md) on a real service: the skills a principal sees, the read skills
// through the items read path with the caller's permissions, the executed and pending shapes, the
// agent's provenance on every event it writes, SKILL_DENIED with nothing changed (the intersection of
// grants, never the union), and the refusals of an unknown skill or a bad input.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { hitlRequired, listSkills } from '../../../src/modules/ai/skillRunner.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { callSkill, createItem, createSkillSite, memberWith, refusal, streamEvents, testAgent, type SkillSite } from './skillsSupport.ts';

const service = await startTestServiceForFile();

async function approvalsOf(site: SkillSite): Promise<{ id: string; status: string; skill: string }[]> {
  return service.context.database.withSiteReads(site.siteId, (tx) =>
    tx.query<{ id: string; status: string; skill: string }>(sql`SELECT id::text, status, skill FROM ai_approvals WHERE site_id = ${site.siteId} ORDER BY created_at`),
  );
}

describe('skills: what a principal may call', () => {
  it('lists the registry entries flagged as skills that the principal admits, with their schema and flags', async () => {
    const site = await createSkillSite(service);
    const skills = await listSkills(service.context, site.siteId, site.adminPrincipal);
    const byName = new Map(skills.map((skill) => [skill.name, skill]));
    for (const name of ['items.list', 'items.read', 'items.search', 'items.summarize', 'items.create', 'items.update', 'items.delete', 'releases.publish', 'translation.translate']) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get('items.delete')).toMatchObject({ dangerous: true, mutates: true, capability: null });
    expect(byName.get('releases.publish')).toMatchObject({ dangerous: true, mutates: true, capability: 'releases:publish' });
    expect(byName.get('items.list')).toMatchObject({ dangerous: false, mutates: false });
    expect(byName.get('items.list')!.inputSchema).toMatchObject({ type: 'object', properties: { collection: { type: 'string' }, limit: { maximum: 100 } } });
    // Commands that are not skills stay out.
    expect(byName.has('users.delete')).toBe(false);
    expect(byName.has('ai.decideApproval')).toBe(false);

    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const theirs = (await listSkills(service.context, site.siteId, reader.principal)).map((skill) => skill.name);
    expect(theirs).toContain('items.list');
    expect(theirs).not.toContain('releases.publish');
  });
});

describe('skills: reads through the items read path', () => {
  it('lists, reads, searches and summarizes with the caller’s read permissions', async () => {
    const site = await createSkillSite(service);
    const first = await createItem(site, 'articles', { title: 'Alpine lakes', category: 'travel', status: 'published' });
    await createItem(site, 'articles', { title: 'Desert roads', category: 'travel', status: 'draft' });
    await createItem(site, 'articles', { title: 'Bread at home', category: 'food', status: 'published' });

    const listed = await callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles', filter: { category: { _eq: 'travel' } }, sort: ['title'], fields: ['id', 'title'] });
    expect(listed).toEqual({
      status: 'executed',
      skill: 'items.list',
      data: { items: [{ id: first.id, title: 'Alpine lakes' }, { id: expect.any(String), title: 'Desert roads' }], meta: { total: 2, limit: 25, offset: 0 } },
    });

    const read = await callSkill(site, site.adminPrincipal, 'items.read', { collection: 'articles', id: first.id });
    expect(read).toMatchObject({ status: 'executed', data: { item: { id: first.id, title: 'Alpine lakes' }, version: 1 } });

    // Search is an async read model: the items are in it once the daemon (of whichever instance leads it) has applied them.
    await service.context.daemon.drain();
    const found = await callSkill(site, site.adminPrincipal, 'items.search', { q: 'alpine', collections: ['articles'] });
    expect(found).toMatchObject({ status: 'executed', data: { total: 1, hits: [{ collection: 'articles', id: first.id }] } });

    const summary = await callSkill(site, site.adminPrincipal, 'items.summarize', { collection: 'articles' });
    expect(summary).toMatchObject({
      status: 'executed',
      data: { collection: 'articles', total: 3, byStatus: { published: 2, draft: 1 }, displayField: 'title' },
    });
    expect((summary as { data: { latest: { display: string }[] } }).data.latest.map((item) => item.display).sort()).toEqual(['Alpine lakes', 'Bread at home', 'Desert roads']);

    // A reader limited to travel articles sees only those, whichever read skill it uses.
    const traveller = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'], conditions: { category: { _eq: 'travel' } } }]);
    const theirs = await callSkill(site, traveller.principal, 'items.list', { collection: 'articles', fields: ['title'], sort: ['title'] });
    expect(theirs).toMatchObject({ data: { items: [{ title: 'Alpine lakes' }, { title: 'Desert roads' }] } });
    expect(await callSkill(site, traveller.principal, 'items.summarize', { collection: 'articles' })).toMatchObject({ data: { total: 2, byStatus: { published: 1, draft: 1 } } });
    expect(await refusal(callSkill(site, traveller.principal, 'items.list', { collection: 'authors' }))).toEqual({ status: 403, code: 'SKILL_DENIED', path: [] });
    // A bad filter is the skill's input error, at its path.
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles', filter: { nope: { _eq: 1 } } }))).toMatchObject({
      status: 400,
      path: ['input', 'filter', 'nope'],
    });
  });
});

describe('skills: writes', () => {
  it('runs a safe write at once: the executed shape, and the agent with its provenance on the event', async () => {
    const site = await createSkillSite(service);
    const agent = testAgent('conversation:writer');
    const outcome = await callSkill(site, site.adminPrincipal, 'items.create', { collection: 'articles', items: { title: 'Written by an agent' } }, { agent });
    expect(outcome).toMatchObject({ status: 'executed', skill: 'items.create', data: [{ snapshot: { title: 'Written by an agent' } }] });
    const itemId = (outcome as { data: { snapshot: { id: string } }[] }).data[0]!.snapshot.id;
    const [created] = await streamEvents(site, `${site.siteId}/item/articles/${itemId}`);
    expect(created!.metadata).toMatchObject({
      actor: { kind: 'agent', id: 'conversation:writer' },
      agent: { onBehalfOf: site.adminUserId, approvedBy: null, approvalId: null, role: null, constitutionVersion: null },
    });
  });

  it('answers a dangerous skill with a pending approval and writes nothing else', async () => {
    const site = await createSkillSite(service);
    const article = await createItem(site, 'articles', { title: 'Keep me for now' });
    const stream = `${site.siteId}/item/articles/${article.id}`;
    const outcome = await callSkill(site, site.adminPrincipal, 'items.delete', { collection: 'articles', id: article.id });
    expect(outcome).toEqual({ status: 'pending_approval', skill: 'items.delete', approvalId: expect.stringMatching(/^[0-9a-f-]{36}$/), message: expect.stringContaining('approval') });
    expect(await streamEvents(site, stream)).toHaveLength(1);
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
    // What the agent API and MCP answer for it.
    expect(hitlRequired(outcome as Parameters<typeof hitlRequired>[0])).toMatchObject({
      status: 202,
      code: 'HITL_REQUIRED',
      extensions: { status: 'pending_approval', skill: 'items.delete', approvalId: (outcome as { approvalId: string }).approvalId },
    });
    expect(await approvalsOf(site)).toEqual([{ id: (outcome as { approvalId: string }).approvalId, status: 'pending_approval', skill: 'items.delete' }]);
    // The site's sessions hear of it.
    const notifications = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ kind: string; severity: string; entity: string }>(
        sql`SELECT data->>'kind' AS kind, data->>'severity' AS severity, data->>'entityId' AS entity FROM events WHERE site_id = ${site.siteId} AND type = 'notification.published'`,
      ),
    );
    expect(notifications).toEqual([{ kind: 'ai.approval_pending', severity: 'warning', entity: (outcome as { approvalId: string }).approvalId }]);
  });

  it('treats an item write that publishes or archives as dangerous: it waits for a person, and nothing is published', async () => {
    const site = await createSkillSite(service);
    const article = await createItem(site, 'articles', { title: 'Quiet draft' });
    const stream = `${site.siteId}/item/articles/${article.id}`;
    const before = await streamEvents(site, stream);
    const publish = await callSkill(site, site.adminPrincipal, 'items.update', { collection: 'articles', id: article.id, changes: { status: 'published' } });
    expect(publish).toMatchObject({ status: 'pending_approval', skill: 'items.update' });
    const create = await callSkill(site, site.adminPrincipal, 'items.create', { collection: 'articles', items: [{ title: 'Fine' }, { title: 'Live at once', status: 'published' }] });
    expect(create).toMatchObject({ status: 'pending_approval', skill: 'items.create' });
    expect(await streamEvents(site, stream)).toEqual(before);
    expect((await site.admin('GET', '/items/articles?filter[title][_eq]=Live at once')).body.data).toEqual([]);
    // Keeping a draft a draft is an ordinary write.
    expect(await callSkill(site, site.adminPrincipal, 'items.update', { collection: 'articles', id: article.id, changes: { title: 'Still a draft', status: 'draft' } })).toMatchObject({
      status: 'executed',
    });
  });

  it('refuses with SKILL_DENIED what the principal may not do itself, and changes nothing', async () => {
    const site = await createSkillSite(service);
    const article = await createItem(site, 'articles', { title: 'Not yours to delete' });
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const before = await streamEvents(site, `${site.siteId}/item/articles/${article.id}`);

    // May read it (the agent sees it) …
    expect(await callSkill(site, reader.principal, 'items.read', { collection: 'articles', id: article.id })).toMatchObject({ status: 'executed' });
    // … but not delete, create or update it: no approval, no write.
    const denied = await callSkill(site, reader.principal, 'items.delete', { collection: 'articles', id: article.id }).catch((error: Error) => error);
    expect(denied).toMatchObject({ code: 'SKILL_DENIED', status: 403, message: expect.stringContaining('delete permission on "articles"') });
    expect(await refusal(callSkill(site, reader.principal, 'items.create', { collection: 'articles', items: { title: 'x' } }))).toMatchObject({ code: 'SKILL_DENIED' });
    expect(await refusal(callSkill(site, reader.principal, 'items.update', { collection: 'articles', id: article.id, changes: { title: 'y' } }))).toMatchObject({
      code: 'SKILL_DENIED',
    });
    expect(await refusal(callSkill(site, reader.principal, 'releases.publish', { id: article.id }))).toMatchObject({ code: 'SKILL_DENIED' });
    expect(await streamEvents(site, `${site.siteId}/item/articles/${article.id}`)).toEqual(before);
    expect(await approvalsOf(site)).toEqual([]);

    // A row-level refusal inside the handler is SKILL_DENIED too: update allowed only on drafts.
    const editor = await memberWith(site, [
      { collection: 'articles', action: 'read', fields: ['*'] },
      { collection: 'articles', action: 'update', fields: ['*'], conditions: { status: { _eq: 'draft' } } },
    ]);
    expect(await refusal(callSkill(site, editor.principal, 'items.update', { collection: 'articles', id: article.id, changes: { title: 'z' } }))).toMatchObject({
      status: 403,
      code: 'SKILL_DENIED',
    });
    expect(await streamEvents(site, `${site.siteId}/item/articles/${article.id}`)).toEqual(before);
  });

  it('refuses an unknown skill, a command that is not a skill, and a bad input, each at its path', async () => {
    const site = await createSkillSite(service);
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.explode', {}))).toEqual({ status: 404, code: 'NOT_FOUND', path: ['skill'] });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'users.delete', { id: site.adminUserId }))).toEqual({ status: 404, code: 'NOT_FOUND', path: ['skill'] });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 7 }))).toEqual({ status: 400, code: 'VALIDATION_FAILED', path: ['input', 'collection'] });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles', limit: 101 }))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      path: ['input', 'limit'],
    });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.read', { collection: 'nothing', id: 'x' }))).toMatchObject({ status: 404 });
    expect(await approvalsOf(site)).toEqual([]);
  });
});

describe('skills: the agent gate and the principal, intersected', () => {
  it('runs a skill only where both the agent role and the principal allow it, at the role’s autonomy, and never while frozen', async () => {
    const site = await createSkillSite(service);
    const article = await createItem(site, 'articles', { title: 'Guarded' });
    const stream = `${site.siteId}/item/articles/${article.id}`;
    const ok = async (method: string, path: string, body: unknown, status = 201) => {
      const response = await site.admin(method, path, body);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      return response.body.data;
    };
    await ok('POST', '/agent/roles', { name: 'librarian', skills: ['items.*'], collections: ['articles'] });
    const librarian = testAgent('mcp:librarian');
    librarian.role = 'librarian';

    // A new role reads only (autonomy `read`), within its collections.
    expect(await callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles' }, { agent: librarian })).toMatchObject({ status: 'executed' });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.create', { collection: 'articles', items: { title: 'x' } }, { agent: librarian }))).toMatchObject({
      status: 403,
      code: 'SKILL_DENIED',
    });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 'authors' }, { agent: librarian }))).toMatchObject({ code: 'SKILL_DENIED' });
    // Its collections hold for what a call reaches: a relation path into authors, a search over every collection.
    for (const input of [{ fields: ['title', 'author.email'] }, { filter: { 'author.email': { _eq: 'a@example.com' } } }, { filter: { author: { name: { _eq: 'A' } } } }, { sort: ['-author.name'] }]) {
      // (The principal, an administrator, may read authors: the refusal is the agent role's.)
      expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles', ...input }, { agent: librarian })), JSON.stringify(input)).toMatchObject({
        code: 'SKILL_DENIED',
      });
    }
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.search', { q: 'Guarded' }, { agent: librarian }))).toMatchObject({ code: 'SKILL_DENIED' });
    expect(await callSkill(site, site.adminPrincipal, 'items.search', { q: 'Guarded', collections: ['articles'] }, { agent: librarian })).toMatchObject({ status: 'executed' });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'releases.publish', { id: article.id }, { agent: librarian }))).toMatchObject({ code: 'SKILL_DENIED' });

    // At `act`, the role's grants meet the principal's: an administrator's agent may ask to delete, a reader's may not.
    await ok('PUT', '/agent/autonomy/librarian', { level: 'act' }, 200);
    expect(await callSkill(site, site.adminPrincipal, 'items.delete', { collection: 'articles', id: article.id }, { agent: librarian })).toMatchObject({
      status: 'pending_approval',
    });
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    expect(await refusal(callSkill(site, reader.principal, 'items.delete', { collection: 'articles', id: article.id }, { agent: librarian }))).toMatchObject({
      code: 'SKILL_DENIED',
    });

    // The kill switch stops every call at once, reads included; nothing is written.
    const freeze = await ok('POST', '/agent/kill-switch', { scope: 'role', target: 'librarian', reason: 'Runaway agent' });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.list', { collection: 'articles' }, { agent: librarian }))).toMatchObject({ status: 423, code: 'AGENT_FROZEN' });
    expect(await refusal(callSkill(site, site.adminPrincipal, 'items.update', { collection: 'articles', id: article.id, changes: { title: 'y' } }, { agent: librarian }))).toMatchObject({
      code: 'AGENT_FROZEN',
    });
    await ok('POST', '/agent/kill-switch/lift', { freezeId: freeze.id }, 200);
    expect(await callSkill(site, site.adminPrincipal, 'items.read', { collection: 'articles', id: article.id }, { agent: librarian })).toMatchObject({ status: 'executed' });
    expect(await streamEvents(site, stream)).toHaveLength(1);
  });
});

