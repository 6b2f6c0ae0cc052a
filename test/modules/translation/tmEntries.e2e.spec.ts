// Translation memory entries over real HTTP (docs/translation.md "Entries"): the upsert keyed on the
// normalized source (one entry under concurrent upserts), list filters and paging, PATCH's allowed and
// refused fields, DELETE, refusals with their paths, who may call, and another site's entries.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createTmSite, expectError, saveEntry, type TmSite } from './support/tmHelpers.ts';

const service = await startTestServiceForFile();

const listIds = async (site: TmSite, query = '') => {
  const listed = await site.asMember('GET', `/tm${query}`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return { ids: listed.body.data.map((entry: { id: string }) => entry.id), meta: listed.body.meta };
};

describe('translation memory entries', () => {
  it('creates an entry with the defaults, then updates the same entry when its normalized source is posted again', async () => {
    const site = await createTmSite(service);
    const created = await saveEntry(site, { sourceLang: 'EN', targetLang: 'de-DE', sourceText: 'Hello  World', targetText: 'Hallo Welt' });
    expect(created).toMatchObject({
      sourceLang: 'en',
      targetLang: 'de-de',
      sourceText: 'Hello  World',
      targetText: 'Hallo Welt',
      quality: 100,
      context: null,
      source: null,
      entrySource: 'manual',
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    // Another composition (NFD), case, surrounding and repeated whitespace: the same key.
    const again = await saveEntry(
      site,
      { sourceLang: 'en', targetLang: 'DE-de', sourceText: ' \u0068ello\n world ', targetText: 'Hallo, Welt', quality: 80, source: 'articles/1', context: 'greeting' },
      200,
    );
    expect(again).toMatchObject({ id: created.id, sourceText: 'Hello  World', targetText: 'Hallo, Welt', quality: 80, source: 'articles/1', context: 'greeting' });
    expect(Date.parse(again.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(again.createdAt).toBe(created.createdAt);
    const accented = await saveEntry(site, { sourceText: 'Cafe\u0301', targetText: 'Café' });
    expect((await saveEntry(site, { sourceText: 'CAFÉ', targetText: 'Kaffee' }, 200)).id).toBe(accented.id);
    expect((await listIds(site)).meta.total).toBe(3 - 1);
    // Posting the same content again records nothing and answers the entry as it is.
    expect(await saveEntry(site, { sourceText: 'café', targetText: 'Kaffee' }, 200)).toMatchObject({ id: accented.id, targetText: 'Kaffee' });
    // Another pair is another entry.
    expect((await saveEntry(site, { targetLang: 'fr', sourceText: 'Hello world', targetText: 'Bonjour le monde' })).id).not.toBe(created.id);
  });

  it('makes one entry of concurrent upserts of one key', async () => {
    const site = await createTmSite(service);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => site.asMember('POST', '/tm', { sourceLang: 'en', targetLang: 'de', sourceText: `Race  condition`, targetText: `Wettlauf ${index}` })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    expect((await listIds(site)).meta.total).toBe(1);
  });

  it('lists newest first, filtered by source, target and entrySource, paged with limit and offset', async () => {
    const site = await createTmSite(service);
    const a = await saveEntry(site, { sourceText: 'one', targetText: 'eins' });
    const b = await saveEntry(site, { targetLang: 'fr', sourceText: 'one', targetText: 'un', entrySource: 'import' });
    const c = await saveEntry(site, { sourceLang: 'fr', targetLang: 'de', sourceText: 'deux', targetText: 'zwei', entrySource: 'provider' });
    expect(c.quality).toBe(70);
    expect(await listIds(site)).toEqual({ ids: [c.id, b.id, a.id], meta: { total: 3, limit: 25, offset: 0 } });
    expect((await listIds(site, '?source=EN')).ids).toEqual([b.id, a.id]);
    expect((await listIds(site, '?target=de')).ids).toEqual([c.id, a.id]);
    expect((await listIds(site, '?source=en&target=fr')).ids).toEqual([b.id]);
    expect((await listIds(site, '?entrySource=provider')).ids).toEqual([c.id]);
    expect(await listIds(site, '?limit=2')).toEqual({ ids: [c.id, b.id], meta: { total: 3, limit: 2, offset: 0 } });
    expect(await listIds(site, '?limit=2&offset=2')).toEqual({ ids: [a.id], meta: { total: 3, limit: 2, offset: 2 } });
    expect(await listIds(site, '?source=it')).toEqual({ ids: [], meta: { total: 0, limit: 25, offset: 0 } });
    expectError(await site.asMember('GET', '/tm?limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.asMember('GET', '/tm?limit=201'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.asMember('GET', '/tm?offset=-1'), 400, 'VALIDATION_FAILED', ['query', 'offset']);
    expectError(await site.asMember('GET', '/tm?entrySource=robot'), 400, 'VALIDATION_FAILED', ['query', 'entrySource']);
    expectError(await site.asMember('GET', "/tm?source=en';--"), 400, 'VALIDATION_FAILED', ['query', 'source']);
  });

  it('refuses bad bodies at their path and writes nothing', async () => {
    const site = await createTmSite(service);
    const post = (body: Record<string, unknown>) => site.asMember('POST', '/tm', { sourceLang: 'en', targetLang: 'de', sourceText: 'x', targetText: 'y', ...body });
    expectError(await post({ sourceLang: 'english!' }), 400, 'VALIDATION_FAILED', ['body', 'sourceLang']);
    expectError(await post({ targetLang: 'de_DE' }), 400, 'VALIDATION_FAILED', ['body', 'targetLang']);
    expectError(await post({ targetLang: `de-${'x'.repeat(40)}` }), 400, 'VALIDATION_FAILED', ['body', 'targetLang']);
    expectError(await post({ targetLang: 'EN' }), 400, 'VALIDATION_FAILED', ['body', 'targetLang']);
    expectError(await post({ sourceText: '' }), 400, 'VALIDATION_FAILED', ['body', 'sourceText']);
    expectError(await post({ sourceText: '   ' }), 400, 'VALIDATION_FAILED', ['body', 'sourceText']);
    expectError(await post({ sourceText: 'x'.repeat(10_001) }), 400, 'VALIDATION_FAILED', ['body', 'sourceText']);
    expectError(await post({ targetText: 42 }), 400, 'VALIDATION_FAILED', ['body', 'targetText']);
    expectError(await post({ quality: 101 }), 400, 'VALIDATION_FAILED', ['body', 'quality']);
    expectError(await post({ quality: 9.5 }), 400, 'VALIDATION_FAILED', ['body', 'quality']);
    expectError(await post({ entrySource: 'robot' }), 400, 'VALIDATION_FAILED', ['body', 'entrySource']);
    expectError(await post({ source: 's'.repeat(501) }), 400, 'VALIDATION_FAILED', ['body', 'source']);
    expectError(await post({ sourceText: 'a\u0000b' }), 400, 'VALIDATION_FAILED');
    expectError(await site.asMember('POST', '/tm', { sourceLang: 'en', targetLang: 'de', targetText: 'y' }), 400, 'VALIDATION_FAILED', ['body', 'sourceText']);
    expect((await listIds(site)).meta.total).toBe(0);
  });

  it('PATCH changes targetText, quality, context and source only; DELETE removes the entry', async () => {
    const site = await createTmSite(service);
    const entry = await saveEntry(site, { sourceText: 'Save', targetText: 'Speichern', source: 'ui' });
    const patched = await site.asMember('PATCH', `/tm/${entry.id}`, { targetText: 'Sichern', quality: 90, context: 'a button', source: null });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ id: entry.id, sourceText: 'Save', targetText: 'Sichern', quality: 90, context: 'a button', source: null, entrySource: 'manual' });
    for (const field of ['sourceLang', 'targetLang', 'sourceText', 'entrySource', 'id', 'createdAt']) {
      expectError(await site.asMember('PATCH', `/tm/${entry.id}`, { [field]: 'x' }), 400, 'VALIDATION_FAILED', ['body', field]);
    }
    expectError(await site.asMember('PATCH', `/tm/${entry.id}`, { quality: -1 }), 400, 'VALIDATION_FAILED', ['body', 'quality']);
    expectError(await site.asMember('PATCH', `/tm/${entry.id}`, { targetText: '' }), 400, 'VALIDATION_FAILED', ['body', 'targetText']);
    expectError(await site.asMember('PATCH', `/tm/${entry.id}`, { unknown: 1 }), 400, 'VALIDATION_FAILED');
    expect((await site.asMember('GET', `/tm/${entry.id}`)).body.data).toEqual(patched.body.data);

    expect((await site.asMember('DELETE', `/tm/${entry.id}`)).status).toBe(204);
    expectError(await site.asMember('GET', `/tm/${entry.id}`), 404, 'NOT_FOUND');
    expectError(await site.asMember('DELETE', `/tm/${entry.id}`), 404, 'NOT_FOUND');
    expectError(await site.asMember('PATCH', `/tm/${entry.id}`, { quality: 1 }), 404, 'NOT_FOUND');
    // Saved again after its delete: a new entry.
    expect((await saveEntry(site, { sourceText: 'save', targetText: 'Speichern' })).id).not.toBe(entry.id);
  });

  it('answers 401 without credentials and 404 for unknown and non-UUID ids', async () => {
    const site = await createTmSite(service);
    const entry = await saveEntry(site, { sourceText: 'Open', targetText: 'Öffnen' });
    for (const [method, path, body] of [
      ['GET', '/tm', undefined],
      ['POST', '/tm', { sourceLang: 'en', targetLang: 'de', sourceText: 'a', targetText: 'b' }],
      ['GET', `/tm/${entry.id}`, undefined],
      ['PATCH', `/tm/${entry.id}`, { quality: 1 }],
      ['DELETE', `/tm/${entry.id}`, undefined],
      ['POST', '/tm/lookup', { query: 'open', sourceLang: 'en', targetLang: 'de' }],
      ['POST', '/tm/translate', { text: 'open', from: 'en', to: 'de' }],
    ] as const) {
      expectError(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
    }
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1"]) {
      const path = `/tm/${encodeURIComponent(id)}`;
      expectError(await site.asMember('GET', path), 404, 'NOT_FOUND');
      expectError(await site.asMember('PATCH', path, { quality: 1 }), 404, 'NOT_FOUND');
      expectError(await site.asMember('DELETE', path), 404, 'NOT_FOUND');
    }
  });

  it('never shows, changes, deletes or counts another site’s entries', async () => {
    const mine = await createTmSite(service);
    const theirs = await createTmSite(service, 'tmother');
    const secret = await saveEntry(theirs, { sourceText: 'Secret plan', targetText: 'Geheimplan' });
    expect((await listIds(mine)).meta.total).toBe(0);
    expectError(await mine.asMember('GET', `/tm/${secret.id}`), 404, 'NOT_FOUND');
    expectError(await mine.asMember('PATCH', `/tm/${secret.id}`, { targetText: 'leaked' }), 404, 'NOT_FOUND');
    expectError(await mine.asMember('DELETE', `/tm/${secret.id}`), 404, 'NOT_FOUND');
    // The same key in my site is my own entry, not theirs.
    const own = await saveEntry(mine, { sourceText: 'Secret plan', targetText: 'Mein Plan' });
    expect(own.id).not.toBe(secret.id);
    expect((await theirs.asMember('GET', `/tm/${secret.id}`)).body.data).toMatchObject({ targetText: 'Geheimplan', quality: 100 });
    // A token of their site is refused on mine.
    expect((await mine.as(theirs.member.token, 'GET', '/tm')).status).toBe(401);
  });
});
