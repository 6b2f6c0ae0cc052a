// Hostile request shapes that once reached route code and answered 500: a body nested without bound
// (finding 7 of the security review), and names that are keys of Object.prototype (finding 8).
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminCalls, eventCount } from '../modules/schema/support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

describe('JSON nesting', () => {
  it('refuses an 800 KB [[[…]]] body to the unauthenticated sign-in with 400, not 500', async () => {
    const site = await createTestSite(service);
    const depth = 400_000;
    const response = await service.request('POST', '/auth/login', { site: site.siteId, rawBody: '['.repeat(depth) + ']'.repeat(depth) });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body'] });
  });

  it('takes 64 levels and refuses 65, brackets inside strings not counted', async () => {
    const site = await createTestSite(service);
    const nested = (levels: number) => `{"email":"a@b.test","password":"x","extra":${'['.repeat(levels - 1)}"[[[["${']'.repeat(levels - 1)}}`;
    const allowed = await service.request('POST', '/auth/login', { site: site.siteId, rawBody: nested(64) });
    expect(allowed.status).not.toBe(500);
    expect(allowed.body.errors[0].message).not.toMatch(/nests deeper/);
    const refused = await service.request('POST', '/auth/login', { site: site.siteId, rawBody: nested(65) });
    expect([refused.status, refused.body.errors[0].code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(refused.body.errors[0].message).toMatch(/nests deeper than 64/);
  });

  it('refuses a filter nested without bound, in JSON and in brackets, with 400', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    expect((await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }] })).status).toBe(201);
    const deepJson = '{"_and":['.repeat(300) + '{"title":{"_eq":"x"}}' + ']}'.repeat(300);
    const json = await call('GET', `/items/notes?filter=${encodeURIComponent(deepJson)}`);
    expect([json.status, json.body.errors[0].path]).toEqual([400, ['filter']]);
    const brackets = await call('GET', `/items/notes?filter${'[_and][0]'.repeat(500)}[title][_eq]=x`);
    expect([brackets.status, brackets.body.errors[0].path]).toEqual([400, ['filter']]);
  });
});

describe('names that are keys of Object.prototype', () => {
  it('refuses the names of Object.prototype as field and collection names, and writes nothing', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    const before = await eventCount(owner, site.siteId);
    for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
      const field = await call('POST', '/collections', { name: 'notes', fields: [{ field: name, type: 'string' }] });
      expect([field.status, field.body.errors[0].code, field.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'fields', 0, 'field']]);
      const collection = await call('POST', '/collections', { name });
      expect([collection.status, collection.body.errors[0].code, collection.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'name']]);
      const relation = await call('POST', '/relations', { kind: 'm2o', collection: 'notes', field: name, relatedCollection: 'notes' });
      expect([relation.status, relation.body.errors[0].code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('an item body with a constructor or __proto__ key is a 400 or an ignored unknown key, never 500', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    expect((await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }] })).status).toBe(201);
    for (const body of ['{"title":"a","constructor":"x"}', '{"title":"a","__proto__":{"admin":true}}', '{"title":"a","toString":1}']) {
      const response = await service.request('POST', '/items/notes', { site: site.siteId, token: site.adminToken, rawBody: body });
      expect(response.status, body).toBeLessThan(500);
    }
  });

  it('a lookup of such a name answers 404 or 400 on every read path, never 500', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    expect((await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }] })).status).toBe(201);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      for (const path of [
        `/items/${name}`,
        `/items/${name}/01a21efe-0119-71b7-a19b-e4db322209cd`,
        `/collections/${name}`,
        `/fields/${name}`,
        `/fields/notes/${name}`,
        `/items/notes?fields=${name}`,
        `/items/notes?filter[${name}][_eq]=x`,
        `/items/notes?sort=${name}`,
        `/search?q=x&collection=${name}`,
      ]) {
        const response = await call('GET', path);
        expect(response.status, path).toBeLessThan(500);
      }
    }
  });
});
