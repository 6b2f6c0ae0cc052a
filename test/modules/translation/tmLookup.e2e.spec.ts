// Fuzzy lookups and the glossary over real HTTP (docs/translation.md "Lookup", "Glossary"): the
// default threshold finds a near match and misses a far one, 100 is exact only, language pairs never
// cross, the best match wins (similarity, then quality, then newest), the trigram index serves the
// lookup under row-level security; glossary terms with their 409s, who may write them, other sites.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { fuzzyLookupQuery, setIndexThreshold } from '../../../src/modules/translation/lookup.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { addTerm, createTmSite, expectError, lookup, saveEntry } from './support/tmHelpers.ts';

const service = await startTestServiceForFile();

const SENTENCE = 'Save the document before closing the window';

describe('translation memory lookups', () => {
  it('finds a near match at the default threshold of 75, and nothing below it', async () => {
    const site = await createTmSite(service);
    const entry = await saveEntry(site, { sourceText: SENTENCE, targetText: 'Speichern Sie das Dokument, bevor Sie das Fenster schließen' });
    await saveEntry(site, { sourceText: 'Delete every file now', targetText: 'Jetzt alle Dateien löschen' });
    expect(await lookup(site, 'save the DOCUMENTS before closing  the window')).toEqual({ ...entry, similarity: 93 });
    // 53 % similar: below the default, found at 50.
    expect(await lookup(site, 'save the file before closing')).toBeNull();
    expect(await lookup(site, 'save the file before closing', { threshold: 50 })).toMatchObject({ id: entry.id, similarity: 53 });
    expect(await lookup(site, 'save the file before closing', { threshold: 54 })).toBeNull();
    // Threshold 0: anything that shares a trigram; nothing that shares none.
    expect(await lookup(site, 'something else entirely', { threshold: 0 })).toMatchObject({ id: entry.id, similarity: 7 });
    expect(await lookup(site, 'zzz qqq', { threshold: 0 })).toBeNull();
    // No trigram at all: no match, no error.
    expect(await lookup(site, '!! ?? …', { threshold: 0 })).toBeNull();
    // The longest query: the sentence repeated has the sentence's trigrams (a set), so it is 99 % similar.
    expect(await lookup(site, `${SENTENCE} `.repeat(220).slice(0, 10_000))).toMatchObject({ id: entry.id, similarity: 99 });
  });

  it('at threshold 100 finds only an exact normalized match', async () => {
    const site = await createTmSite(service);
    const entry = await saveEntry(site, { sourceText: SENTENCE, targetText: 'Speichern …' });
    expect(await lookup(site, '  save THE document before closing   the window ', { threshold: 100 })).toEqual({ ...entry, similarity: 100 });
    // The same trigrams without the second "the": 100 % trigram-similar, but not the same text.
    expect(await lookup(site, 'save the document before closing window', { threshold: 100 })).toBeNull();
    expect(await lookup(site, 'save the document before closing window', { threshold: 99 })).toMatchObject({ id: entry.id, similarity: 99 });
  });

  it('never matches another language pair', async () => {
    const site = await createTmSite(service);
    await saveEntry(site, { sourceText: SENTENCE, targetText: 'Speichern …' });
    expect(await lookup(site, SENTENCE, { targetLang: 'fr' })).toBeNull();
    expect(await lookup(site, SENTENCE, { sourceLang: 'de', targetLang: 'en' })).toBeNull();
    expect(await lookup(site, SENTENCE, { targetLang: 'de-at' })).toBeNull();
    expect(await lookup(site, SENTENCE, { targetLang: 'DE' })).toMatchObject({ similarity: 100 });
  });

  it('answers the best match: the most similar, then the highest quality, then the newest', async () => {
    const site = await createTmSite(service);
    const near = await saveEntry(site, { sourceText: 'save the documents before closing the window', targetText: 'near' });
    await saveEntry(site, { sourceText: 'save the file before closing the window', targetText: 'farther' });
    expect(await lookup(site, SENTENCE)).toMatchObject({ id: near.id, targetText: 'near' });
    // "hello world" and "world hello" have the same trigrams: equally similar to "Hello, world!".
    const low = await saveEntry(site, { sourceText: 'hello world', targetText: 'low', quality: 60 });
    const high = await saveEntry(site, { sourceText: 'world hello', targetText: 'high', quality: 90 });
    expect(await lookup(site, 'Hello, world!')).toMatchObject({ id: high.id, similarity: 99 });
    await site.asMember('PATCH', `/tm/${high.id}`, { quality: 60 });
    expect(await lookup(site, 'Hello, world!')).toMatchObject({ id: high.id });
    await site.asMember('PATCH', `/tm/${low.id}`, { targetText: 'low, newer' });
    expect(await lookup(site, 'Hello, world!')).toMatchObject({ id: low.id, targetText: 'low, newer' });
  });

  it('refuses bad lookups at their path', async () => {
    const site = await createTmSite(service);
    const post = (body: Record<string, unknown>) => site.asMember('POST', '/tm/lookup', { query: 'x', sourceLang: 'en', targetLang: 'de', ...body });
    expectError(await post({ threshold: 101 }), 400, 'VALIDATION_FAILED', ['body', 'threshold']);
    expectError(await post({ threshold: -1 }), 400, 'VALIDATION_FAILED', ['body', 'threshold']);
    expectError(await post({ threshold: '75' }), 400, 'VALIDATION_FAILED', ['body', 'threshold']);
    expectError(await post({ query: '' }), 400, 'VALIDATION_FAILED', ['body', 'query']);
    expectError(await post({ query: 'q'.repeat(10_001) }), 400, 'VALIDATION_FAILED', ['body', 'query']);
    expectError(await post({ sourceLang: '%' }), 400, 'VALIDATION_FAILED', ['body', 'sourceLang']);
    expectError(await post({ extra: true }), 400, 'VALIDATION_FAILED');
  });

  it('never finds another site’s entries', async () => {
    const mine = await createTmSite(service);
    const theirs = await createTmSite(service, 'tmother');
    await saveEntry(theirs, { sourceText: SENTENCE, targetText: 'theirs' });
    expect(await lookup(mine, SENTENCE)).toBeNull();
    expect(await lookup(mine, SENTENCE, { threshold: 100 })).toBeNull();
    expect(await lookup(mine, SENTENCE, { threshold: 0 })).toBeNull();
  });

  it('is served by the trigram index under row-level security', async () => {
    const site = await createTmSite(service);
    await saveEntry(site, { sourceText: SENTENCE, targetText: 'Speichern …' });
    const request = { normalizedQuery: 'save the documents before closing the window', sourceLang: 'en', targetLang: 'de', threshold: 75 };
    const plan = await service.context.database.withSite(site.siteId, async (tx) => {
      // A table this small is read whole, or through a btree index of the site, whatever its indexes:
      // leave the planner bitmap scans with costly filters. `%` is then an index condition of the
      // trigram index only if row-level security lets it be one (the migration marks it leakproof);
      // otherwise it stays a filter (the benchmark shows the plan at 100,000 entries).
      await tx.query(sql`SET LOCAL enable_seqscan = off`);
      await tx.query(sql`SET LOCAL enable_indexscan = off`);
      await tx.query(sql`SET LOCAL cpu_operator_cost = 100`);
      await tx.query(setIndexThreshold(75));
      const rows = await tx.query<{ 'QUERY PLAN': string }>(sql`EXPLAIN ${fuzzyLookupQuery(site.siteId, request)}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Bitmap Index Scan on tm_entries_trigram/);
    expect(plan).toMatch(/Index Cond: \(.*\(normalized_source % /);
    expect(plan).not.toMatch(/Filter: \(normalized_source % /);
  });
});

describe('the glossary', () => {
  it('adds, lists, reads, changes and deletes terms; a second term of a pair is 409', async () => {
    const site = await createTmSite(service);
    const term = await addTerm(site, { term: 'Widget', translation: 'Widget (Bauteil)' });
    expect(term).toMatchObject({ sourceLang: 'en', targetLang: 'de', term: 'Widget', translation: 'Widget (Bauteil)', caseSensitive: false });
    const other = await addTerm(site, { targetLang: 'fr', term: 'widget', translation: 'gadget', caseSensitive: true });
    expectError(await site.admin('POST', '/tm/glossary', { sourceLang: 'EN', targetLang: 'de', term: '  WIDGET ', translation: 'x' }), 409, 'CONFLICT', ['body', 'term']);
    const listed = await site.asMember('GET', '/tm/glossary');
    expect(listed.body).toEqual({ data: [term, other], meta: { total: 2, limit: 25, offset: 0 } });
    expect((await site.asMember('GET', '/tm/glossary?target=fr')).body.data).toEqual([other]);
    expect((await site.asMember('GET', '/tm/glossary?limit=1&offset=1')).body).toEqual({ data: [other], meta: { total: 2, limit: 1, offset: 1 } });
    expect((await site.asMember('GET', `/tm/glossary/${term.id}`)).body.data).toEqual(term);

    const renamed = await site.admin('PATCH', `/tm/glossary/${term.id}`, { term: 'Gadget', caseSensitive: true });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: term.id, term: 'Gadget', translation: 'Widget (Bauteil)', caseSensitive: true });
    const third = await addTerm(site, { term: 'widget', translation: 'Teil' });
    expectError(await site.admin('PATCH', `/tm/glossary/${third.id}`, { term: 'GADGET' }), 409, 'CONFLICT', ['body', 'term']);
    expect((await site.admin('PATCH', `/tm/glossary/${third.id}`, { term: 'Widget' })).status).toBe(200);
    expectError(await site.admin('PATCH', `/tm/glossary/${third.id}`, { targetLang: 'fr' }), 400, 'VALIDATION_FAILED', ['body', 'targetLang']);
    expectError(await site.admin('PATCH', `/tm/glossary/${third.id}`, { translation: '' }), 400, 'VALIDATION_FAILED', ['body', 'translation']);
    expectError(await site.admin('POST', '/tm/glossary', { sourceLang: 'en', targetLang: 'de', term: 't'.repeat(501), translation: 'x' }), 400, 'VALIDATION_FAILED', [
      'body',
      'term',
    ]);
    expectError(await site.admin('POST', '/tm/glossary', { sourceLang: 'en', targetLang: 'en', term: 'a', translation: 'b' }), 400, 'VALIDATION_FAILED', ['body', 'targetLang']);

    expect((await site.admin('DELETE', `/tm/glossary/${third.id}`)).status).toBe(204);
    expectError(await site.asMember('GET', `/tm/glossary/${third.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', `/tm/glossary/${third.id}`), 404, 'NOT_FOUND');
    // Its term is free again.
    await addTerm(site, { term: 'widget', translation: 'Teil' });
  });

  it('lets members read the glossary and only administrators write it', async () => {
    const site = await createTmSite(service);
    const term = await addTerm(site, { term: 'Cart', translation: 'Warenkorb' });
    expect((await site.asMember('GET', '/tm/glossary')).status).toBe(200);
    expectError(await site.asMember('POST', '/tm/glossary', { sourceLang: 'en', targetLang: 'de', term: 'Checkout', translation: 'Kasse' }), 403, 'PERMISSION_DENIED');
    expectError(await site.asMember('PATCH', `/tm/glossary/${term.id}`, { translation: 'Korb' }), 403, 'PERMISSION_DENIED');
    expectError(await site.asMember('DELETE', `/tm/glossary/${term.id}`), 403, 'PERMISSION_DENIED');
    for (const [method, path] of [
      ['GET', '/tm/glossary'],
      ['GET', `/tm/glossary/${term.id}`],
      ['DELETE', `/tm/glossary/${term.id}`],
    ] as const) {
      expectError(await site.as(null, method, path), 401, 'UNAUTHENTICATED');
    }
    expect((await site.asMember('GET', `/tm/glossary/${term.id}`)).body.data.translation).toBe('Warenkorb');
  });

  it('never shows, changes, deletes or counts another site’s terms; unknown ids are 404', async () => {
    const mine = await createTmSite(service);
    const theirs = await createTmSite(service, 'tmother');
    const secret = await addTerm(theirs, { term: 'Project X', translation: 'Projekt X' });
    expect((await mine.asMember('GET', '/tm/glossary')).body.meta.total).toBe(0);
    expectError(await mine.asMember('GET', `/tm/glossary/${secret.id}`), 404, 'NOT_FOUND');
    expectError(await mine.admin('PATCH', `/tm/glossary/${secret.id}`, { translation: 'leaked' }), 404, 'NOT_FOUND');
    expectError(await mine.admin('DELETE', `/tm/glossary/${secret.id}`), 404, 'NOT_FOUND');
    // Their term does not make mine a conflict.
    await addTerm(mine, { term: 'project x', translation: 'Mein Projekt' });
    for (const id of [randomUUID(), 'nope']) {
      expectError(await mine.asMember('GET', `/tm/glossary/${id}`), 404, 'NOT_FOUND');
      expectError(await mine.admin('PATCH', `/tm/glossary/${id}`, { translation: 'x' }), 404, 'NOT_FOUND');
      expectError(await mine.admin('DELETE', `/tm/glossary/${id}`), 404, 'NOT_FOUND');
    }
    expect((await theirs.asMember('GET', `/tm/glossary/${secret.id}`)).body.data.translation).toBe('Projekt X');
  });
});
