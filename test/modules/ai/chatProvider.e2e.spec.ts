// POST /ai/chat through the OpenAI-compatible provider (docs/ai-copilot.md): a local server speaking
// chat completions (JSON, and server-sent events with tool-call deltas split across chunks). A tool
// call is the skill's call, as the caller; a dangerous one waits for a person; plain content is an
// answer; a failure, a timeout, garbage arguments or a tool never offered is 502 AI_PROVIDER_FAILED.
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { openAiIntentProvider } from '../../../src/modules/ai/providers/openaiProvider.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { startOpenAiCompatibleServer } from './openaiCompatibleServer.ts';
import { createItem, createSkillSite, memberWith, type SkillSite } from './skillsSupport.ts';

const API_KEY = 'sk-test-copilot-key-0123456789';
const TIMEOUT_MS = 1500;
const provider = await startOpenAiCompatibleServer(API_KEY);
afterAll(() => provider.close());
const settings = { SVC_AI_BASE_URL: provider.baseUrl, SVC_AI_API_KEY: API_KEY, SVC_AI_MODEL: 'test-model', SVC_AI_TIMEOUT_MS: String(TIMEOUT_MS) };
const service = await startTestServiceForFile(settings);
const streaming = await startTestServiceForFile({ ...settings, SVC_AI_STREAM: 'true' });

function chat(site: SkillSite, message: string) {
  return site.as(site.adminToken, 'POST', '/ai/chat', { message });
}

function expectProviderFailed(response: { status: number; body: any }, reason: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(502);
  expect(response.body.errors[0]).toMatchObject({ code: 'AI_PROVIDER_FAILED', extensions: { provider: 'openai', reason, conversationId: expect.any(String) } });
  expect(JSON.stringify(response.body)).not.toContain(API_KEY);
}

async function articleTitles(site: SkillSite): Promise<string[]> {
  const listed = await site.admin('GET', '/items/articles?sort=title');
  return listed.body.data.map((item: { title: string }) => item.title);
}

describe('the OpenAI-compatible provider', () => {
  it('runs the read skill a tool call names, and sent the skills as tools with the bearer key', async () => {
    const site = await createSkillSite(service, 'aiprov');
    const article = await createItem(site, 'articles', { title: 'Alpine lakes' });
    const before = provider.requests.length;
    provider.script({ kind: 'tool', name: 'items_read', arguments: JSON.stringify({ collection: 'articles', id: article.id }) });

    const answer = await chat(site, 'What does the lakes article say?');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'executed', skill: 'items.read', data: { item: { id: article.id, title: 'Alpine lakes' } } });

    const sent = provider.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent[0]!.body).toMatchObject({ model: 'test-model', tool_choice: 'auto', messages: [{ role: 'system' }, { role: 'user', content: 'What does the lakes article say?' }] });
    expect(sent[0]!.body.stream).not.toBe(true);
    const tools = new Map(sent[0]!.body.tools.map((tool: { type: string; function: { name: string } }) => [tool.function.name, tool]));
    for (const name of ['items_list', 'items_read', 'items_search', 'items_summarize', 'items_create', 'items_update', 'items_delete', 'releases_publish']) expect(tools.has(name), name).toBe(true);
    expect(tools.get('items_list')).toMatchObject({ type: 'function', function: { parameters: { type: 'object', properties: { collection: { type: 'string' } } } } });
  });

  it('assembles a streamed tool call from its deltas and runs it', async () => {
    const site = await createSkillSite(streaming, 'aiprov');
    await createItem(site, 'articles', { title: 'Bread at home' });
    const before = provider.requests.length;
    provider.script({ kind: 'tool', name: 'items_summarize', arguments: JSON.stringify({ collection: 'articles' }) });

    const answer = await chat(site, 'Sum up the articles');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'executed', skill: 'items.summarize', data: { collection: 'articles', total: 1 } });
    expect(provider.requests[before]!.body.stream).toBe(true);

    // Streamed text is joined into the answer.
    provider.script({ kind: 'content', text: 'I can list, read, search and summarize your articles.' });
    expect((await chat(site, 'What can you do?')).body.data).toMatchObject({ status: 'answered', message: 'I can list, read, search and summarize your articles.' });
  });

  it('answers pending_approval for a dangerous skill’s tool call, and deletes nothing', async () => {
    const site = await createSkillSite(service, 'aiprov');
    const article = await createItem(site, 'articles', { title: 'Keep me' });
    provider.script({ kind: 'tool', name: 'items_delete', arguments: JSON.stringify({ collection: 'articles', id: article.id }) });

    const answer = await chat(site, 'Remove the keep-me article');
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body.data).toMatchObject({ status: 'pending_approval', skill: 'items.delete', approvalId: expect.any(String) });
    expect(await articleTitles(site)).toEqual(['Keep me']);
  });

  it('answers plain content as an answer, running nothing', async () => {
    const site = await createSkillSite(service, 'aiprov');
    provider.script({ kind: 'content', text: '  Hello! Ask me about your content.  ' });
    const answer = await chat(site, 'hi');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ status: 'answered', message: 'Hello! Ask me about your content.', conversationId: expect.any(String) });
  });

  it('answers 502 AI_PROVIDER_FAILED when the provider fails (after one retry), and records the refusal', async () => {
    const site = await createSkillSite(service, 'aiprov');
    const before = provider.requests.length;
    provider.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const failed = await chat(site, 'list articles');
    expectProviderFailed(failed, 'HTTP 500');
    expect(provider.requests.length - before).toBe(2);
    const conversationId = failed.body.errors[0].extensions.conversationId;
    const messages = await site.admin('GET', `/ai/conversations/${conversationId}/messages`);
    expect(messages.body.data).toMatchObject([{ role: 'user' }, { role: 'assistant', status: 'refused', code: 'AI_PROVIDER_FAILED' }]);
  });

  it('answers 502 for a tool call with arguments that are not a JSON object, or naming a tool it was not offered, changing nothing', async () => {
    const site = await createSkillSite(service, 'aiprov');
    await createItem(site, 'articles', { title: 'Only one' });
    // A reader is not offered releases.publish (it needs releases:publish): naming it is no skill of theirs.
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    provider.script(
      { kind: 'tool', name: 'items_create', arguments: '{"collection": "articles", "items": {"title": ' },
      { kind: 'tool', name: 'items_create', arguments: '["articles"]' },
      { kind: 'tool', name: 'users_delete', arguments: '{}' },
      { kind: 'tool', name: 'items.read', arguments: '{}' },
      { kind: 'tool', name: 'releases_publish', arguments: '{"id": "0190f5a2-7c1e-7000-8000-000000000001"}' },
    );
    expectProviderFailed(await chat(site, 'make an article'), 'the arguments of its tool call are not JSON');
    expectProviderFailed(await chat(site, 'make an article'), 'the arguments of its tool call are not a JSON object');
    expectProviderFailed(await chat(site, 'delete a user'), 'it called a tool that was not offered');
    expectProviderFailed(await chat(site, 'read it'), 'it called a tool that was not offered');
    expectProviderFailed(await site.as(reader.token, 'POST', '/ai/chat', { message: 'publish it' }), 'it called a tool that was not offered');
    expect(await articleTitles(site)).toEqual(['Only one']);
  });

  it('answers 502 when the provider does not answer within SVC_AI_TIMEOUT_MS', async () => {
    const site = await createSkillSite(streaming, 'aiprov');
    provider.script({ kind: 'hang' });
    const started = Date.now();
    expectProviderFailed(await chat(site, 'list articles'), 'timed out');
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
  });

  it('sends no Authorization header without a key (a local server needs none)', async () => {
    const keyless = openAiIntentProvider({ baseUrl: provider.baseUrl, apiKey: null, model: 'test-model', timeoutMs: TIMEOUT_MS, stream: false });
    const before = provider.requests.length;
    // This server wants a key: it refuses, and the refusal is the provider's failure.
    const failure = await keyless.resolve({ message: 'hi', skills: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'AI_PROVIDER_FAILED', status: 502, extensions: { reason: 'HTTP 401' } });
    expect(provider.requests.slice(before).map((request) => request.authorization)).toEqual([null]);
    expect(provider.requests[before]!.body.tools).toBeUndefined();
  });
});
