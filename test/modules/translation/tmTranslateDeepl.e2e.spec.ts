// The translate pipeline's provider stage against a DeepL-compatible provider of the test's own
// (docs/translation.md "Providers"): the key's header, DeepL's language codes, the glossary's terms
// protected in <keep> tags with tag_handling=xml, XML escaping both ways, a refusal without the key.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { startProviderServer } from './support/providerServer.ts';
import { addTerm, createTmSite, expectError } from './support/tmHelpers.ts';

const API_KEY = 'deepl-test-key-0123456789';
const provider = await startProviderServer();
afterAll(() => provider.close());
const service = await startTestServiceForFile({
  SVC_TRANSLATE_PROVIDER: 'deepl',
  SVC_TRANSLATE_URL: provider.url,
  SVC_TRANSLATE_API_KEY: API_KEY,
  SVC_TRANSLATE_TIMEOUT_MS: '1500',
});

beforeEach(() => {
  provider.behaviour = 'translate';
  provider.received.length = 0;
});

describe('POST /tm/translate with a DeepL-compatible provider', () => {
  it('sends the text with the key, DeepL language codes and the glossary’s terms kept, and answers the translation without the tags', async () => {
    const site = await createTmSite(service);
    await addTerm(site, { targetLang: 'de-de', term: 'widget', translation: 'Bauteil' });
    await addTerm(site, { targetLang: 'de-de', term: 'shopping cart', translation: 'Warenkorb' });
    const answer = await site.asMember('POST', '/tm/translate', { text: 'Add the Widget to the shopping  cart & pay <now>', from: 'en', to: 'de-DE' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ text: '[de] Add the Bauteil to the Warenkorb & pay <now>', stage: 'provider', provider: 'deepl' });
    const [call] = provider.received;
    expect(call!.path).toBe('/v2/translate');
    expect(call!.headers.authorization).toBe(`DeepL-Auth-Key ${API_KEY}`);
    expect(call!.body).toMatchObject({
      source_lang: 'en',
      target_lang: 'de',
      tag_handling: 'xml',
      ignore_tags: 'keep',
      text: 'Add the <keep>Bauteil</keep> to the <keep>Warenkorb</keep> &amp; pay &lt;now&gt;',
    });
  });

  it('maps targets that DeepL wants with a variant', async () => {
    const site = await createTmSite(service);
    for (const [to, expected] of [
      ['en', 'en-US'],
      ['en-GB', 'en-GB'],
      ['pt-BR', 'pt-BR'],
      ['pt', 'pt-PT'],
      ['zh-Hant-TW', 'zh-HANT'],
      ['fr-CA', 'fr'],
    ]) {
      const answer = await site.asMember('POST', '/tm/translate', { text: 'Hallo', from: 'de', to });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(provider.received.at(-1)!.body.target_lang).toBe(expected);
    }
  });

  it('answers 502 without the key when DeepL refuses', async () => {
    const site = await createTmSite(service);
    provider.behaviour = 'refuse';
    const error = expectError(await site.asMember('POST', '/tm/translate', { text: 'Hello', from: 'en', to: 'de', save: true }), 502, 'TRANSLATION_PROVIDER_FAILED');
    expect(error.extensions).toEqual({ provider: 'deepl', reason: 'the API key was refused' });
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect((await site.asMember('GET', '/tm')).body.meta.total).toBe(0);
  });
});
