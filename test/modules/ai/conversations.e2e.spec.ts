// The copilot's conversations (docs/ai-copilot.md): each user's own, per site; the list (most recently
// active first, paged), a conversation's messages (oldest first), the delete, and 404 for another
// user's, another site's, a deleted, an unknown or a malformed id.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createSkillSite, memberWith, type SkillSite } from './skillsSupport.ts';

const service = await startTestServiceForFile();

async function chat(site: SkillSite, message: string, conversationId?: string, token = site.adminToken): Promise<string> {
  const answer = await site.as(token, 'POST', '/ai/chat', { message, ...(conversationId ? { conversationId } : {}) });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body.data.conversationId;
}

function expectNotFound(response: { status: number; body: any }) {
  expect(response.status, JSON.stringify(response.body)).toBe(404);
  expect(response.body.errors[0].code).toBe('NOT_FOUND');
}

describe('GET /ai/conversations and their messages', () => {
  it('lists the caller’s conversations, most recently active first and paged, with their messages oldest first', async () => {
    const site = await createSkillSite(service, 'conv');
    const first = await chat(site, 'list articles');
    const second = await chat(site, 'summarize articles');
    await chat(site, 'hello again', first);

    const listed = await site.admin('GET', '/ai/conversations');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ total: 2, page: 1, pageSize: 25 });
    expect(listed.body.data).toEqual([
      { id: first, title: 'list articles', messageCount: 4, createdAt: expect.any(String), updatedAt: expect.any(String) },
      { id: second, title: 'summarize articles', messageCount: 2, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    const paged = await site.admin('GET', '/ai/conversations?limit=1&page=2');
    expect(paged.body).toMatchObject({ data: [{ id: second }], meta: { total: 2, page: 2, pageSize: 1 } });

    const messages = await site.admin('GET', `/ai/conversations/${first}/messages`);
    expect(messages.status).toBe(200);
    expect(messages.body.meta.total).toBe(4);
    expect(messages.body.data).toEqual([
      { id: expect.any(String), role: 'user', text: 'list articles', status: null, skill: null, approvalId: null, stagedId: null, code: null, createdAt: expect.any(String) },
      { id: expect.any(String), role: 'assistant', text: 'Ran items.list.', status: 'executed', skill: 'items.list', approvalId: null, stagedId: null, code: null, createdAt: expect.any(String) },
      { id: expect.any(String), role: 'user', text: 'hello again', status: null, skill: null, approvalId: null, stagedId: null, code: null, createdAt: expect.any(String) },
      { id: expect.any(String), role: 'assistant', text: expect.stringContaining('"list articles"'), status: 'answered', skill: null, approvalId: null, stagedId: null, code: null, createdAt: expect.any(String) },
    ]);
    expect((await site.admin('GET', `/ai/conversations/${first}/messages?limit=2&page=2`)).body.data.map((message: { text: string }) => message.text)[0]).toBe('hello again');
  });

  it('keeps a title to the start of the first message', async () => {
    const site = await createSkillSite(service, 'conv');
    const long = `search for ${'alpine '.repeat(30)}`.trim();
    await chat(site, long);
    const [conversation] = (await site.admin('GET', '/ai/conversations')).body.data;
    expect(conversation.title).toBe(long.slice(0, 80));
  });

  it('shows each user only their own conversations, administrators included', async () => {
    const site = await createSkillSite(service, 'conv');
    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const mine = await chat(site, 'list articles');
    const theirs = await chat(site, 'list articles', undefined, member.token);

    expect((await site.admin('GET', '/ai/conversations')).body.data.map((row: { id: string }) => row.id)).toEqual([mine]);
    expect((await site.as(member.token, 'GET', '/ai/conversations')).body.data.map((row: { id: string }) => row.id)).toEqual([theirs]);
    expectNotFound(await site.admin('GET', `/ai/conversations/${theirs}/messages`));
    expectNotFound(await site.as(member.token, 'GET', `/ai/conversations/${mine}/messages`));
    expectNotFound(await site.admin('DELETE', `/ai/conversations/${theirs}`));
    // Still theirs, untouched.
    expect((await site.as(member.token, 'GET', `/ai/conversations/${theirs}/messages`)).body.data).toHaveLength(2);
  });

  it('keeps a site’s conversations to that site, for the same person on another site too', async () => {
    const site = await createSkillSite(service, 'conv');
    const other = await createSkillSite(service, 'conv');
    const here = await chat(site, 'list articles');
    const there = await chat(other, 'list articles');

    expect((await site.admin('GET', '/ai/conversations')).body.data.map((row: { id: string }) => row.id)).toEqual([here]);
    expectNotFound(await site.admin('GET', `/ai/conversations/${there}/messages`));
    expectNotFound(await site.admin('DELETE', `/ai/conversations/${there}`));
    // The site's administrator's token is refused on the other site altogether.
    expect((await service.request('GET', '/ai/conversations', { site: other.siteId, token: site.adminToken })).status).toBe(401);
    expect((await other.admin('GET', `/ai/conversations/${there}/messages`)).body.data).toHaveLength(2);
  });

  it('answers 404 for an unknown or malformed id, and 401 without credentials', async () => {
    const site = await createSkillSite(service, 'conv');
    for (const id of [randomUUID(), 'not-a-uuid', '1']) {
      expectNotFound(await site.admin('GET', `/ai/conversations/${id}/messages`));
      expectNotFound(await site.admin('DELETE', `/ai/conversations/${id}`));
    }
    expect((await site.as(null, 'GET', '/ai/conversations')).status).toBe(401);
  });
});

describe('DELETE /ai/conversations/:id', () => {
  it('deletes the caller’s conversation: its messages are gone from reads, and it takes no more chats', async () => {
    const site = await createSkillSite(service, 'conv');
    const gone = await chat(site, 'list articles');
    const kept = await chat(site, 'summarize articles');

    const deleted = await site.admin('DELETE', `/ai/conversations/${gone}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect((await site.admin('GET', '/ai/conversations')).body).toMatchObject({ data: [{ id: kept }], meta: { total: 1 } });
    expectNotFound(await site.admin('GET', `/ai/conversations/${gone}/messages`));
    expectNotFound(await site.admin('DELETE', `/ai/conversations/${gone}`));
    expectNotFound(await site.admin('POST', '/ai/chat', { message: 'list articles', conversationId: gone }));
    expect((await site.admin('GET', `/ai/conversations/${kept}/messages`)).body.data).toHaveLength(2);
  });
});
