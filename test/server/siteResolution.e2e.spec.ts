// Site resolution under a flood of unknown site ids (finding 5 of the security review): what it
// remembers is bounded, and lookups that reach the database are limited per client IP first.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createSiteResolver, SITE_CACHE_SIZE } from '../../src/server/siteResolution.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const LOOKUP_LIMIT = 20;
const service = await startTestServiceForFile({ SVC_RATE_LIMIT_SITE_LOOKUP: String(LOOKUP_LIMIT) });

function randomSite(): string {
  return `x-${randomBytes(8).toString('hex')}`;
}

describe('site resolution', () => {
  it('remembers at most SITE_CACHE_SIZE site ids, however many unknown ones are named', async () => {
    const resolver = createSiteResolver(service.context);
    const requests = Array.from({ length: SITE_CACHE_SIZE + 2_000 }, () => ({ headers: { 'x-svc-site': randomSite() }, ip: '192.0.2.1' }) as unknown as FastifyRequest);
    for (let start = 0; start < requests.length; start += 200) {
      const outcomes = await Promise.allSettled(requests.slice(start, start + 200).map((request) => resolver.resolve(request)));
      expect(outcomes.every((outcome) => outcome.status === 'rejected' && (outcome.reason as { code?: string }).code === 'SITE_NOT_FOUND')).toBe(true);
    }
    expect(resolver.cached()).toBeLessThanOrEqual(SITE_CACHE_SIZE);
  });

  it('answers 429 past the per-IP lookup limit, before the lookup, while a cached site still answers', async () => {
    const site = await createTestSite(service);
    const known = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
    expect(known.status).toBe(200);
    const statuses: number[] = [];
    let limited: { status: number; headers: Headers; body: { errors: { code: string }[] } } | null = null;
    for (let attempt = 0; attempt <= LOOKUP_LIMIT && !limited; attempt += 1) {
      const response = await service.request('POST', '/auth/login', { site: randomSite(), body: { email: 'a@b.test', password: 'x' } });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    // Counters may hold earlier hits of this IP within the window (a rerun): the limit comes no later than its size.
    expect(limited, `statuses ${statuses.join(',')}`).not.toBeNull();
    expect(statuses.filter((status) => status !== 429 && status !== 404)).toEqual([]);
    expect(limited!.body.errors[0]!.code).toBe('RATE_LIMITED');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    const stillKnown = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
    expect(stillKnown.status).toBe(200);
  });
});
