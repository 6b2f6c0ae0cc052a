import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, expectError, patchItem, revisionsOf, type HistorySite } from './support.ts';

const service = await startTestServiceForFile();

/** The moment an item's latest write was recorded: the revision's timestamp, the row's valid_from. */
async function recordedAt(site: HistorySite, collection: string, id: string): Promise<string> {
  const [latest] = await revisionsOf(service, site, collection, id);
  return latest.timestamp;
}

function at(time: string): string {
  return encodeURIComponent(time);
}

describe('time travel (asOf)', () => {
  it('reads an item as it stood at an earlier moment', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Old title', views: 1, secret: 'pw' });
    const before = await recordedAt(site, 'articles', article.id);
    await patchItem(service, site, 'articles', article.id, { title: 'New title', views: 2 });
    const after = await recordedAt(site, 'articles', article.id);

    const old = await service.request('GET', `/items/articles/${article.id}?asOf=${at(before)}`, site.as);
    expect(old.status).toBe(200);
    expect(old.body.data).toMatchObject({ id: article.id, title: 'Old title', views: 1, secret: '**********' });
    expect(old.headers.get('etag')).toBe('"1"');

    const current = await service.request('GET', `/items/articles/${article.id}?asOf=${at(after)}`, site.as);
    expect(current.body.data).toMatchObject({ title: 'New title', views: 2 });
    const fields = await service.request('GET', `/items/articles/${article.id}?asOf=${at(before)}&fields=title`, site.as);
    expect(fields.body.data).toEqual({ title: 'Old title' });
  });

  it('lists a collection as it stood, with the same filter, sort, fields and relations', async () => {
    const site = await createHistorySite(service);
    const author = await createItem(service, site, 'authors', { name: 'Ann' });
    const alpha = await createItem(service, site, 'articles', { title: 'Alpha', views: 1, author: author.id });
    const beta = await createItem(service, site, 'articles', { title: 'Beta', views: 5 });
    const moment = await recordedAt(site, 'articles', beta.id);

    await patchItem(service, site, 'articles', alpha.id, { title: 'Alpha 2', views: 10 });
    await patchItem(service, site, 'authors', author.id, { name: 'Anna' });
    await createItem(service, site, 'articles', { title: 'Gamma', views: 7 });
    expect((await service.request('DELETE', `/items/articles/${beta.id}`, site.as)).status).toBe(204);

    const list = await service.request('GET', `/items/articles?asOf=${at(moment)}&sort=-views&fields=title,views`, site.as);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { title: 'Beta', views: 5 },
      { title: 'Alpha', views: 1 },
    ]);
    expect(list.body.meta).toMatchObject({ total: 2 });

    const filtered = await service.request('GET', `/items/articles?asOf=${at(moment)}&filter[views][_gte]=5&fields=title`, site.as);
    expect(filtered.body.data).toEqual([{ title: 'Beta' }]);

    const related = await service.request('GET', `/items/articles?asOf=${at(moment)}&filter[author][name][_eq]=Ann&fields=title,author.name`, site.as);
    expect(related.body.data).toEqual([{ title: 'Alpha', author: { name: 'Ann' } }]);
    const relatedLive = await service.request('GET', `/items/articles?filter[author][name][_eq]=Ann&fields=title`, site.as);
    expect(relatedLive.body.data).toEqual([]);

    const counted = await service.request('GET', `/items/articles?asOf=${at(moment)}&aggregate[count]=*`, site.as);
    expect(counted.status).toBe(200);
    expect(counted.body.data).toEqual([{ count: 2 }]);

    const live = await service.request('GET', `/items/articles?sort=title&fields=title`, site.as);
    expect(live.body.data).toEqual([{ title: 'Alpha 2' }, { title: 'Gamma' }]);
  });

  it('answers 404 for a moment before the item existed, and after it was deleted', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Short-lived' });
    const alive = await recordedAt(site, 'articles', article.id);
    expect((await service.request('DELETE', `/items/articles/${article.id}`, site.as)).status).toBe(204);
    const deleted = await recordedAt(site, 'articles', article.id);

    expectError(await service.request('GET', `/items/articles/${article.id}?asOf=2000-01-01T00:00:00Z`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${article.id}?asOf=${at(deleted)}`, site.as), 404, 'RECORD_NOT_FOUND');
    const then = await service.request('GET', `/items/articles/${article.id}?asOf=${at(alive)}`, site.as);
    expect(then.body.data.title).toBe('Short-lived');

    const early = await service.request('GET', `/items/articles?asOf=2000-01-01`, site.as);
    expect(early.status).toBe(200);
    expect(early.body.data).toEqual([]);
  });

  it('refuses a malformed asOf with 400 at query.asOf', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'A' });
    for (const bad of ['yesterday', '2024-13-01T00:00:00Z', '2024-01-01T10:00', '', '1700000000']) {
      expectError(await service.request('GET', `/items/articles/${article.id}?asOf=${at(bad)}`, site.as), 400, 'VALIDATION_FAILED', ['query', 'asOf']);
      expectError(await service.request('GET', `/items/articles?asOf=${at(bad)}`, site.as), 400, 'VALIDATION_FAILED', ['query', 'asOf']);
    }
    expectError(await service.request('GET', `/items/articles?asOf=2024-01-01&asOf=2024-01-02`, site.as), 400, 'VALIDATION_FAILED', ['query', 'asOf']);
  });

  it('never shows another site’s items at any moment', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const foreign = await createItem(service, other, 'articles', { title: 'Foreign' });
    const moment = await recordedAt(other, 'articles', foreign.id);
    expectError(await service.request('GET', `/items/articles/${foreign.id}?asOf=${at(moment)}`, site.as), 404, 'RECORD_NOT_FOUND');
    const list = await service.request('GET', `/items/articles?asOf=${at(moment)}`, site.as);
    expect(list.body.data).toEqual([]);
  });

  it('keeps each replaced version as a closed history row, the current one in items', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'v1' });
    await patchItem(service, site, 'articles', article.id, { title: 'v2' });
    await patchItem(service, site, 'articles', article.id, { title: 'v3' });
    const rows = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ version: number; valid_from: Date; valid_to: Date | null; title: string }>({
        text: `SELECT version, valid_from, valid_to, data->>'title' AS title FROM item_history WHERE site_id = $1 AND id = $2
               UNION ALL
               SELECT version, valid_from, NULL, data->>'title' FROM items WHERE site_id = $1 AND id = $2
               ORDER BY version`,
        values: [site.siteId, article.id],
      }),
    );
    expect(rows.map((row) => row.title)).toEqual(['v1', 'v2', 'v3']);
    expect(rows.map((row) => row.valid_to === null)).toEqual([false, false, true]);
    expect(rows[0]!.valid_to!.getTime()).toBe(rows[1]!.valid_from.getTime());
    expect(rows[1]!.valid_to!.getTime()).toBe(rows[2]!.valid_from.getTime());
    expect(rows[2]!.valid_from.getTime()).toBe(new Date(await recordedAt(site, 'articles', article.id)).getTime());
  });
});

describe('time travel, property', () => {
  type Step = { op: 'create'; title: string; views: number } | { op: 'patch' | 'delete' | 'restore'; target: number; title: string; views: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ op: fc.constant('create' as const), title: fc.constantFrom('a', 'b', 'c', 'Tiếng'), views: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ op: fc.constantFrom('patch' as const, 'delete' as const, 'restore' as const), target: fc.nat(), title: fc.constantFrom('a', 'b', 'd'), views: fc.integer({ min: 0, max: 9 }) }),
  );

  /** Lets the clock pass the current millisecond, so that two writes never share a recorded moment. */
  async function nextMillisecond(): Promise<void> {
    const now = Date.now();
    while (Date.now() <= now + 1) await new Promise((resolve) => setImmediate(resolve));
  }

  it('answers every earlier moment of any history of writes exactly as the data stood then', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const site = await createHistorySite(service);
        const live: string[] = [];
        const deleted: string[] = [];
        const moments: { at: string; list: unknown[]; items: Map<string, unknown> }[] = [];
        const listNow = async (asOf?: string) => {
          const suffix = asOf ? `&asOf=${at(asOf)}` : '';
          const response = await service.request('GET', `/items/articles?fields=id,title,views&sort=id&limit=200${suffix}`, site.as);
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          return response.body.data as { id: string }[];
        };
        for (const entry of steps) {
          let touched: string;
          if (entry.op === 'create') {
            touched = (await createItem(service, site, 'articles', { title: entry.title, views: entry.views })).id;
            live.push(touched);
          } else if (entry.op === 'restore') {
            // A revert of a deleted item to its oldest revision brings it back with that content.
            if (deleted.length === 0) continue;
            touched = deleted.splice(entry.target % deleted.length, 1)[0]!;
            const revisions = await revisionsOf(service, site, 'articles', touched);
            const restored = await service.request('POST', `/items/articles/${touched}/revert`, { ...site.as, body: { revisionId: revisions.at(-1)!.revisionId } });
            expect(restored.status, JSON.stringify(restored.body)).toBe(200);
            live.push(touched);
          } else {
            if (live.length === 0) continue;
            touched = live[entry.target % live.length]!;
            if (entry.op === 'patch') await patchItem(service, site, 'articles', touched, { title: entry.title, views: entry.views });
            else {
              expect((await service.request('DELETE', `/items/articles/${touched}`, site.as)).status).toBe(204);
              live.splice(live.indexOf(touched), 1);
              deleted.push(touched);
            }
          }
          // The moment of the newest event so far: a PATCH that changes nothing appends none (and
          // writes no revision), so the state it leaves is the one of the previous event.
          const [latest] = await revisionsOf(service, site, 'articles', touched);
          const previous = moments.at(-1)?.at;
          const at = previous !== undefined && previous > latest.timestamp ? previous : latest.timestamp;
          const list = await listNow();
          moments.push({ at, list, items: new Map(list.map((item) => [item.id, item])) });
          await nextMillisecond();
        }
        for (const moment of moments) {
          expect(await listNow(moment.at), moment.at).toEqual(moment.list);
          for (const id of new Set(moments.flatMap((other) => [...other.items.keys()]))) {
            const one = await service.request('GET', `/items/articles/${id}?asOf=${at(moment.at)}&fields=id,title,views`, site.as);
            const expected = moment.items.get(id);
            expect(one.status, `${id} at ${moment.at}`).toBe(expected ? 200 : 404);
            if (expected) expect(one.body.data).toEqual(expected);
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
