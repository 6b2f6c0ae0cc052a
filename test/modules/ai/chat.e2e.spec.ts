// POST /ai/chat with the built-in parser (docs/ai-copilot.md) on a real service: the executed,
// pending and answered shapes, SKILL_DENIED with nothing changed, the body's refusals, another site's
// conversation, an API key as the caller, the agent's provenance, and the aiChat rate limit.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createSkillSite, memberWith, streamEvents, type SkillSite } from './skillsSupport.ts';

const service = await startTestServiceForFile();

function chat(site: SkillSite, body: unknown, token: string = site.adminToken) {
  return site.as(token, 'POST', '/ai/chat', body);
}

function expectError(response: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

async function articleCount(site: SkillSite): Promise<number> {
  const listed = await site.admin('GET', '/items/articles?meta=total_count');
  expect(listed.status).toBe(200);
  return listed.body.data.length;
}

async function messagesOf(site: SkillSite, conversationId: string, token = site.adminToken) {
  const listed = await site.as(token, 'GET', `/ai/conversations/${conversationId}/messages`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data as { role: string; text: string; status: string | null; skill: string | null; approvalId: string | null; code: string | null }[];
}

describe('POST /ai/chat: skills through the built-in parser', () => {
  it('runs a read skill and answers executed with its data, as the conversation’s agent', async () => {
    const site = await createSkillSite(service, 'chat');
    const article = await createItem(site, 'articles', { title: 'Alpine lakes' });
    await createItem(site, 'articles', { title: 'Desert roads' });

    const read = await chat(site, { message: `show article ${article.id}` });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data).toMatchObject({ status: 'executed', skill: 'items.read', data: { item: { id: article.id, title: 'Alpine lakes' } }, conversationId: expect.any(String) });
    const { conversationId } = read.body.data;

    const listed = await chat(site, { message: 'list articles', conversationId });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject({ status: 'executed', skill: 'items.list', conversationId, data: { meta: { total: 2 } } });
    expect(listed.body.data.data.items.map((item: { title: string }) => item.title).sort()).toEqual(['Alpine lakes', 'Desert roads']);

    expect(await messagesOf(site, conversationId)).toMatchObject([
      { role: 'user', text: `show article ${article.id}`, status: null },
      { role: 'assistant', status: 'executed', skill: 'items.read' },
      { role: 'user', text: 'list articles' },
      { role: 'assistant', status: 'executed', skill: 'items.list' },
    ]);

    // A write the copilot makes carries the conversation as its agent, for the person who asked.
    const created = await chat(site, { message: 'create article titled By the copilot', conversationId });
    expect(created.body.data).toMatchObject({ status: 'executed', skill: 'items.create', data: [{ snapshot: { title: 'By the copilot' } }] });
    const [event] = await streamEvents(site, `${site.siteId}/item/articles/${created.body.data.data[0].snapshot.id}`);
    expect(event!.metadata).toMatchObject({ actor: { kind: 'agent', id: `conversation:${conversationId}` }, agent: { onBehalfOf: site.adminUserId } });
  });

  it('answers pending_approval for a dangerous skill and deletes nothing', async () => {
    const site = await createSkillSite(service, 'chat');
    const article = await createItem(site, 'articles', { title: 'Keep me' });

    const answer = await chat(site, { message: `delete article ${article.id}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body.data).toEqual({
      status: 'pending_approval',
      skill: 'items.delete',
      approvalId: expect.any(String),
      message: expect.stringContaining('approval'),
      conversationId: expect.any(String),
    });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
    const approval = await site.admin('GET', `/ai/approvals/${answer.body.data.approvalId}`);
    expect(approval.body.data).toMatchObject({ status: 'pending_approval', call: { skill: 'items.delete', input: { collection: 'articles', id: article.id } } });
    expect(approval.body.data.agent.id).toBe(`conversation:${answer.body.data.conversationId}`);
    expect((await messagesOf(site, answer.body.data.conversationId))[1]).toMatchObject({ status: 'pending_approval', approvalId: answer.body.data.approvalId });
  });

  it('refuses a skill the caller may not use with SKILL_DENIED, changes nothing, and records the refusal', async () => {
    const site = await createSkillSite(service, 'chat');
    await createItem(site, 'articles', { title: 'Existing' });
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);

    const refused = await chat(site, { message: 'create article titled Not allowed' }, reader.token);
    expectError(refused, 403, 'SKILL_DENIED');
    expect(await articleCount(site)).toBe(1);
    const conversationId = refused.body.errors[0].extensions.conversationId;
    expect(await messagesOf(site, conversationId, reader.token)).toMatchObject([
      { role: 'user', text: 'create article titled Not allowed' },
      { role: 'assistant', status: 'refused', code: 'SKILL_DENIED' },
    ]);
    // Reading is theirs to do.
    expect((await chat(site, { message: 'list articles' }, reader.token)).body.data).toMatchObject({ status: 'executed', data: { meta: { total: 1 } } });
  });

  it('answers a message no phrasing matches with the phrasings, and runs nothing', async () => {
    const site = await createSkillSite(service, 'chat');
    const answer = await chat(site, { message: 'What is the weather like?' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ status: 'answered', message: expect.stringContaining('"list articles"'), conversationId: expect.any(String) });
    expect(await messagesOf(site, answer.body.data.conversationId)).toMatchObject([{ role: 'user' }, { role: 'assistant', status: 'answered', skill: null }]);
  });

  it('takes an API key as the caller', async () => {
    const site = await createSkillSite(service, 'chat');
    await createItem(site, 'articles', { title: 'Keyed' });
    const created = await site.admin('POST', '/api-keys', { name: 'copilot', userId: site.adminUserId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const answer = await chat(site, { message: 'summarize articles' }, created.body.data.key);
    expect(answer.body.data).toMatchObject({ status: 'executed', skill: 'items.summarize', data: { total: 1 } });
  });
});

describe('POST /ai/chat: refusals', () => {
  it('refuses a message that is not a non-empty string of at most 4000 characters, at body.message, recording nothing', async () => {
    const site = await createSkillSite(service, 'chat');
    for (const body of [{ message: 42 }, { message: '' }, { message: '   ' }, {}, { message: 'x'.repeat(4001) }, { message: null }]) {
      expectError(await chat(site, body), 400, 'VALIDATION_FAILED', ['body', 'message']);
    }
    expectError(await chat(site, { message: 'list articles', conversationId: 'not-a-uuid' }), 400, 'VALIDATION_FAILED', ['body', 'conversationId']);
    const rows = await service.context.database.withSiteReads(site.siteId, (tx) => tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ai_conversations WHERE site_id = ${site.siteId}`));
    expect(rows[0]!.n).toBe(0);
  });

  it('answers 404 for another site’s, another user’s or an unknown conversation, and writes nothing', async () => {
    const site = await createSkillSite(service, 'chat');
    const other = await createSkillSite(service, 'chat');
    const theirs = await chat(other, { message: 'list articles' });
    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const members = await chat(site, { message: 'list articles' }, member.token);

    for (const conversationId of [theirs.body.data.conversationId, members.body.data.conversationId, randomUUID()]) {
      expectError(await chat(site, { message: 'list articles', conversationId }), 404, 'NOT_FOUND');
    }
    expect((await site.admin('GET', '/ai/conversations')).body.meta.total).toBe(0);
    expect(await messagesOf(other, theirs.body.data.conversationId, other.adminToken)).toHaveLength(2);
  });

  it('answers 401 without credentials', async () => {
    const site = await createSkillSite(service, 'chat');
    expectError(await chat(site, { message: 'list articles' }, null as unknown as string), 401, 'UNAUTHENTICATED');
  });

  it('limits each user to 60 chats a minute (aiChat), then answers 429', async () => {
    const site = await createSkillSite(service, 'chat');
    for (let batch = 0; batch < 6; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(site, { message: 'hello' })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    }
    const limited = await chat(site, { message: 'hello' });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    // Another user of the site has a budget of their own.
    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    expect((await chat(site, { message: 'hello' }, member.token)).status).toBe(200);
  });
});
