// The delivery negative cache remembers page slugs that missed; anonymous requests choose the slugs,
// so it must stay bounded however many distinct ones arrive (least recently used out).
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../../src/modules/delivery/responseCache.ts';

describe('delivery negative cache', () => {
  it('stays under its size cap for 10,000 random slugs, and keeps the recently used ones', async () => {
    const cache = await createResponseCache({ prefix: 'test', ttlSeconds: 60, negativeTtlMs: 30_000, maxMisses: 1_000, logger: pino({ level: 'silent' }) });
    try {
      await cache.rememberMiss('site-a', 'kept', 'f1');
      for (let slug = 0; slug < 10_000; slug += 1) {
        await cache.rememberMiss('site-a', randomBytes(8).toString('hex'), 'f1');
        // A slug read often stays remembered while random ones come and go.
        if (slug % 500 === 0) expect(await cache.isMiss('site-a', 'kept', 'f1')).toBe(true);
        expect(cache.missCount).toBeLessThanOrEqual(1_000);
      }
      expect(cache.missCount).toBe(1_000);
      expect(await cache.isMiss('site-a', 'kept', 'f1')).toBe(true);
    } finally {
      await cache.close();
    }
  });

  it('has a default cap', async () => {
    const cache = await createResponseCache({ prefix: 'test', ttlSeconds: 60, negativeTtlMs: 30_000, logger: pino({ level: 'silent' }) });
    try {
      for (let slug = 0; slug < 12_000; slug += 1) await cache.rememberMiss('site-a', `slug-${slug}`, 'f1');
      expect(cache.missCount).toBe(10_000);
    } finally {
      await cache.close();
    }
  });
});
