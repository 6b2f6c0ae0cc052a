// The translate pipeline over real HTTP (docs/translation.md "Translate"), against an OpenAI-compatible
// provider of the test's own: memory before glossary before provider, each reached when the earlier
// misses; the glossary's terms in the prompt; saving to memory; a provider that refuses or hangs;
// no provider at all; and never another site's memory or glossary.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { startProviderServer } from './support/providerServer.ts';
import { addTerm, createTmSite, expectError, saveEntry, type TmSite } from './support/tmHelpers.ts';

const API_KEY = 'sk-test-0123456789-secret';
const provider = await startProviderServer();
afterAll(() => provider.close());
const service = await startTestServiceForFile({
  SVC_TRANSLATE_PROVIDER: 'openai',
  SVC_TRANSLATE_URL: `${provider.url}/v1`,
  SVC_TRANSLATE_API_KEY: API_KEY,
  SVC_TRANSLATE_MODEL: 'test-model',
  SVC_TRANSLATE_TIMEOUT_MS: '1500',
});
const bare = await startTestServiceForFile();

beforeEach(() => {
  provider.behaviour = 'translate';
  provider.received.length = 0;
});

async function translate(site: TmSite, text: string, options: Record<string, unknown> = {}) {
  const answer = await site.asMember('POST', '/tm/translate', { text, from: 'en', to: 'de', ...options });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data;
}

const entryCount = async (site: TmSite) => (await site.asMember('GET', '/tm')).body.meta.total;

describe('POST /tm/translate', () => {
  it('answers from memory, then the glossary, then the provider, each when the earlier misses', async () => {
    const site = await createTmSite(service);
    const entry = await saveEntry(site, { sourceText: 'Proceed to checkout', targetText: 'Weiter zur Kasse' });
    const term = await addTerm(site, { term: 'Proceed to checkout', translation: 'Zur Kasse gehen' });
    await addTerm(site, { term: 'checkout', translation: 'Kasse' });

    const fromMemory = await translate(site, 'proceed to  CHECKOUT');
    expect(fromMemory).toEqual({ text: 'Weiter zur Kasse', stage: 'memory', match: { ...entry, similarity: 100 } });
    expect(await translate(site, 'Proceed to the checkout')).toMatchObject({ stage: 'memory', match: { id: entry.id } });

    expect((await site.asMember('DELETE', `/tm/${entry.id}`)).status).toBe(204);
    expect(await translate(site, 'PROCEED to checkout')).toEqual({ text: 'Zur Kasse gehen', stage: 'glossary', term });
    expect(provider.received).toEqual([]);

    const fromProvider = await translate(site, 'Proceed to checkout now');
    expect(fromProvider).toEqual({ text: '[llm] Proceed to checkout now', stage: 'provider', provider: 'openai' });
    expect(provider.received).toHaveLength(1);
    const [call] = provider.received;
    expect(call!.path).toBe('/v1/chat/completions');
    expect(call!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call!.body).toMatchObject({ model: 'test-model', temperature: 0 });
    const [system, user] = call!.body.messages;
    expect(user).toEqual({ role: 'user', content: 'Proceed to checkout now' });
    expect(system.role).toBe('system');
    expect(system.content).toContain('"en"');
    expect(system.content).toContain('"de"');
    // The pair's terms that occur in the text, the longest at each place ("checkout" is inside the longer term).
    expect(system.content).toContain('Glossary: translate each of these terms exactly as given.\n- "Proceed to checkout" → "Zur Kasse gehen"');
    expect(system.content).not.toContain('"Kasse"');
    await translate(site, 'Checkout, then proceed to checkout');
    expect(provider.received.at(-1)!.body.messages[0].content).toContain('- "Proceed to checkout" → "Zur Kasse gehen"\n- "checkout" → "Kasse"');
    // Nothing saved without `save`.
    expect(await entryCount(site)).toBe(0);
  });

  it('gives the provider only whole-word terms of the pair, honouring case-sensitive ones', async () => {
    const site = await createTmSite(service);
    await addTerm(site, { term: 'Apple', translation: 'Apple Inc.', caseSensitive: true });
    await addTerm(site, { term: 'cat', translation: 'Katze' });
    await addTerm(site, { targetLang: 'fr', term: 'apple', translation: 'pomme' });
    expect(await translate(site, 'Apple')).toMatchObject({ stage: 'glossary', text: 'Apple Inc.' });
    expect(await translate(site, 'apple')).toMatchObject({ stage: 'provider' });
    expect(provider.received.at(-1)!.body.messages[0].content).not.toContain('Glossary');
    await translate(site, 'An Apple a day, and the category of apple pies');
    const prompt = provider.received.at(-1)!.body.messages[0].content;
    expect(prompt).toContain('- "Apple" → "Apple Inc."');
    expect(prompt).not.toContain('Katze');
    expect(prompt).not.toContain('pomme');
  });

  it('saves a provider translation to memory with save: true, and answers from memory next time', async () => {
    const site = await createTmSite(service);
    const answer = await translate(site, 'Your order has shipped', { save: true });
    expect(answer).toMatchObject({ text: '[llm] Your order has shipped', stage: 'provider', provider: 'openai' });
    expect(answer.saved).toMatchObject({ sourceText: 'Your order has shipped', targetText: '[llm] Your order has shipped', entrySource: 'provider', quality: 70 });
    const listed = await site.asMember('GET', '/tm?entrySource=provider');
    expect(listed.body.data).toEqual([answer.saved]);
    expect(await translate(site, 'your order has shipped', { save: true })).toMatchObject({ stage: 'memory', match: { id: answer.saved.id, similarity: 100 } });
    expect(provider.received).toHaveLength(1);
  });

  it('answers 502 TRANSLATION_PROVIDER_FAILED, without the key, when the provider refuses or hangs; nothing is saved', async () => {
    const site = await createTmSite(service);
    provider.behaviour = 'refuse';
    const refused = expectError(await site.asMember('POST', '/tm/translate', { text: 'Hello', from: 'en', to: 'de', save: true }), 502, 'TRANSLATION_PROVIDER_FAILED');
    expect(refused.extensions).toEqual({ provider: 'openai', reason: 'HTTP 403' });
    expect(JSON.stringify(refused)).not.toContain(API_KEY);
    provider.behaviour = 'hang';
    const started = Date.now();
    const hung = expectError(await site.asMember('POST', '/tm/translate', { text: 'Hello', from: 'en', to: 'de' }), 502, 'TRANSLATION_PROVIDER_FAILED');
    expect(hung.extensions).toEqual({ provider: 'openai', reason: 'timed out' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await entryCount(site)).toBe(0);
  });

  it('refuses bad bodies at their path', async () => {
    const site = await createTmSite(service);
    const post = (body: Record<string, unknown>) => site.asMember('POST', '/tm/translate', { text: 'x', from: 'en', to: 'de', ...body });
    expectError(await post({ to: 'EN' }), 400, 'VALIDATION_FAILED', ['body', 'to']);
    expectError(await post({ from: 'e' }), 400, 'VALIDATION_FAILED', ['body', 'from']);
    expectError(await post({ text: '' }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    expectError(await post({ text: 't'.repeat(10_001) }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    expectError(await post({ save: 'yes' }), 400, 'VALIDATION_FAILED', ['body', 'save']);
    expectError(await post({ threshold: 10 }), 400, 'VALIDATION_FAILED');
    expect(provider.received).toEqual([]);
  });

  it('never uses another site’s memory or glossary', async () => {
    const mine = await createTmSite(service);
    const theirs = await createTmSite(service, 'tmother');
    await saveEntry(theirs, { sourceText: 'Welcome back', targetText: 'theirs' });
    await addTerm(theirs, { term: 'Welcome', translation: 'their term' });
    await addTerm(theirs, { term: 'Good morning', translation: 'their greeting' });
    expect(await translate(mine, 'Welcome back')).toMatchObject({ stage: 'provider' });
    expect(await translate(mine, 'Good morning')).toMatchObject({ stage: 'provider' });
    for (const call of provider.received) expect(call.body.messages[0].content).not.toContain('their');
    expect(await translate(theirs, 'Welcome back')).toMatchObject({ stage: 'memory', text: 'theirs' });
  });
});

describe('POST /tm/translate without a provider', () => {
  it('still answers from memory and the glossary, then says there is no provider', async () => {
    const site = await createTmSite(bare);
    await saveEntry(site, { sourceText: 'Sign in', targetText: 'Anmelden' });
    await addTerm(site, { term: 'Sign out', translation: 'Abmelden' });
    expect(await translate(site, 'Sign in')).toMatchObject({ stage: 'memory', text: 'Anmelden' });
    expect(await translate(site, 'sign out')).toMatchObject({ stage: 'glossary', text: 'Abmelden' });
    expect(await translate(site, 'Forgot your password?', { save: true })).toEqual({ text: null, stage: 'none', reason: 'no provider' });
    expect(await entryCount(site)).toBe(1);
  });
});
