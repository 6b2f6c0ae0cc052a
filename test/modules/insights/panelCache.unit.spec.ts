// The panel cache on its own (docs/insights.md, "Cache"): bounded, dropped by a write to a collection
// an answer reads, never keeping an answer computed across such a write, and off at 0 seconds.
import { describe, expect, it } from 'vitest';
import { createPanelCache, type PanelAnswer } from '../../../src/modules/insights/panelCache.ts';
import type { PanelPlan } from '../../../src/modules/insights/panelQuery.ts';

const plan = (collections: string[], normalized = '{}', siteId = 's1'): PanelPlan => ({
  siteId,
  source: 'items',
  collection: collections[0]!,
  aggregate: 'count',
  field: null,
  groupBy: [],
  bucket: null,
  filter: null,
  node: null,
  limit: 100,
  collections,
  normalized,
  now: new Date(),
});

let computed = 0;
const compute = async (): Promise<PanelAnswer> => ({ rows: [{ value: ++computed }], executedAt: new Date().toISOString(), durationMs: 1 });

describe('the panel cache', () => {
  it('answers again from memory, per fingerprint and schema version', async () => {
    const cache = createPanelCache({ ttlSeconds: 60 });
    const first = await cache.answer(plan(['articles']), 1, 'admin', compute);
    expect(await cache.answer(plan(['articles']), 1, 'admin', compute)).toEqual({ ...first, cached: true });
    expect((await cache.answer(plan(['articles']), 1, 'other', compute)).cached).toBe(false);
    expect((await cache.answer(plan(['articles']), 2, 'admin', compute)).cached).toBe(false);
    expect((await cache.answer(plan(['articles']), 1, null, compute)).cached).toBe(false);
    expect((await cache.answer(plan(['articles'], '{}', 's2'), 1, 'admin', compute)).cached).toBe(false);
  });

  it('drops the answers that read a written collection, in that site only', async () => {
    const cache = createPanelCache({ ttlSeconds: 60 });
    await cache.answer(plan(['articles', 'authors'], 'a'), 1, 'admin', compute);
    await cache.answer(plan(['authors'], 'b'), 1, 'admin', compute);
    await cache.answer(plan(['articles'], 'c', 's2'), 1, 'admin', compute);
    cache.invalidate('s1', 'authors');
    expect((await cache.answer(plan(['articles', 'authors'], 'a'), 1, 'admin', compute)).cached).toBe(false);
    expect((await cache.answer(plan(['authors'], 'b'), 1, 'admin', compute)).cached).toBe(false);
    expect((await cache.answer(plan(['articles'], 'c', 's2'), 1, 'admin', compute)).cached).toBe(true);
  });

  it('does not keep an answer computed while a write to its collection landed', async () => {
    const cache = createPanelCache({ ttlSeconds: 60 });
    await cache.answer(plan(['articles']), 1, 'admin', async () => {
      cache.invalidate('s1', 'articles');
      return compute();
    });
    expect((await cache.answer(plan(['articles']), 1, 'admin', compute)).cached).toBe(false);
    expect((await cache.answer(plan(['articles']), 1, 'admin', compute)).cached).toBe(true);
  });

  it('holds at most its entries, and nothing at 0 seconds', async () => {
    const bounded = createPanelCache({ ttlSeconds: 60, maxEntries: 3 });
    for (let index = 0; index < 10; index += 1) await bounded.answer(plan(['articles'], String(index)), 1, 'admin', compute);
    expect(bounded.size).toBe(3);
    bounded.invalidate('s1', 'articles');
    expect(bounded.size).toBe(0);
    const off = createPanelCache({ ttlSeconds: 0 });
    await off.answer(plan(['articles']), 1, 'admin', compute);
    expect((await off.answer(plan(['articles']), 1, 'admin', compute)).cached).toBe(false);
    expect(off.size).toBe(0);
  });
});
