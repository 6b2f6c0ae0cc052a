// Running extensions end to end: POST /extensions/:id/run runs the code in the sandbox (a separate
// process with time and memory limits, a vm context with no host objects), and serves its API calls
// only with what was granted, through the items read path.
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { TRUSTED_KEYS, upload } from './support.ts';

const service = await startTestServiceForFile({ SVC_EXTENSION_TRUSTED_KEYS: TRUSTED_KEYS });

const call = (site: TestSite, method: string, path: string, body?: unknown) => service.request(method, path, { site: site.siteId, token: site.adminToken, body });

async function contentSite(): Promise<TestSite> {
  const site = await createTestSite(service, 'extrun');
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  await createCollection(service, site, 'notes', [{ field: 'text', type: 'string' }]);
  for (const title of ['One', 'Two']) expect((await call(site, 'POST', '/items/articles', { title })).status).toBe(201);
  expect((await call(site, 'POST', '/items/notes', { text: 'private' })).status).toBe(201);
  return site;
}

/** Installs `code`, enables it and grants `granted` (of what it asks for, `requested`). */
async function installed(site: TestSite, code: string, requested: string[] = [], granted: string[] = requested, name = 'runner'): Promise<string> {
  const { id } = await upload(service, site, { name, code, capabilities: requested });
  expect((await call(site, 'POST', `/extensions/${id}/enable`)).status).toBe(200);
  if (granted.length > 0) expect((await call(site, 'POST', `/extensions/${id}/capabilities`, { capabilities: granted })).status).toBe(200);
  return id;
}

async function run(site: TestSite, id: string, body: Record<string, unknown> = {}) {
  const response = await call(site, 'POST', `/extensions/${id}/run`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

describe('running an extension', () => {
  it('runs the entry function with the input, and serves granted reads and logs', async () => {
    const site = await contentSite();
    const id = await installed(
      site,
      `module.exports.run = async (input, api) => {
         const list = await api.items.list('articles', { sort: ['title'], fields: ['id', 'title'] });
         const first = await api.items.read('articles', list.items[0].id);
         await api.log('counted', list.items.length, { of: input.label });
         return { label: input.label, titles: list.items.map((item) => item.title), total: list.meta.total, first: first.title };
       };`,
      ['log', 'items:read:articles'],
    );
    const result = await run(site, id, { input: { label: 'demo' } });
    expect(result).toMatchObject({ status: 'succeeded', output: { label: 'demo', titles: ['One', 'Two'], total: 2, first: 'One' }, error: null });
    expect(result.logs).toEqual([{ level: 'info', message: 'counted 2 {"of":"demo"}' }]);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses a capability the bundle asked for but was not granted, and one it never asked for, inside the API', async () => {
    const site = await contentSite();
    const id = await installed(
      site,
      `exports.run = async (input, api) => {
         const attempt = async (work) => { try { await work(); return 'allowed'; } catch (error) { return error.code + ': ' + error.message; } };
         return {
           notes: await attempt(() => api.items.list('notes')),
           secrets: await attempt(() => api.items.read('secrets', 'x')),
           log: await attempt(() => api.log('hello')),
           articles: await attempt(() => api.items.list('articles')),
           unknownCollection: await attempt(() => api.items.list('articles', { fields: ['nope'] })),
         };
       };`,
      ['log', 'items:read:articles', 'items:read:notes'],
      ['items:read:articles'],
    );
    const result = await run(site, id);
    expect(result.status).toBe('succeeded');
    expect(result.output).toEqual({
      notes: 'CAPABILITY_DENIED: This extension has not been granted "items:read:notes"',
      secrets: 'CAPABILITY_DENIED: This extension has not been granted "items:read:secrets"',
      log: 'CAPABILITY_DENIED: This extension has not been granted "log"',
      articles: 'allowed',
      unknownCollection: expect.stringMatching(/^VALIDATION/),
    });
    expect(result.logs).toEqual([]);
  });

  it('refuses a query whose relation paths reach a collection not granted, and a query key beyond the API’s', async () => {
    const site = await contentSite();
    await createCollection(service, site, 'authors', [
      { field: 'name', type: 'string' },
      { field: 'ssn', type: 'string' },
    ]);
    expect((await call(site, 'POST', '/fields/articles', { field: 'author', type: 'uuid' })).status).toBe(201);
    await createRelation(service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' });
    const author = await call(site, 'POST', '/items/authors', { name: 'Ann', ssn: 'SECRET-123' });
    await call(site, 'POST', '/items/articles', { title: 'By Ann', author: author.body.data.id });
    const id = await installed(
      site,
      `exports.run = async (input, api) => {
         const attempt = async (work) => { try { return JSON.stringify(await work()); } catch (error) { return error.code; } };
         return {
           fields: await attempt(() => api.items.list('articles', { fields: ['title', 'author.ssn'] })),
           star: await attempt(() => api.items.list('articles', { fields: 'title,author.*' })),
           filter: await attempt(() => api.items.list('articles', { filter: { author: { ssn: { _eq: 'SECRET-123' } } } })),
           sort: await attempt(() => api.items.list('articles', { sort: ['author.ssn'] })),
           deep: await attempt(() => api.items.list('articles', { deep: { author: {} } })),
           own: await attempt(() => api.items.list('articles', { fields: ['title'], filter: { title: { _eq: 'By Ann' } } })),
         };
       };`,
      ['items:read:articles'],
    );
    const result = await run(site, id);
    expect(result.output).toMatchObject({ fields: 'CAPABILITY_DENIED', star: 'CAPABILITY_DENIED', filter: 'CAPABILITY_DENIED', sort: 'CAPABILITY_DENIED', deep: 'VALIDATION_FAILED' });
    expect(result.output.own).toContain('By Ann');
    expect(JSON.stringify(result)).not.toContain('SECRET-123');
  });

  it('a forged answer from the sandbox fails the run, never the service', async () => {
    const site = await contentSite();
    const id = await installed(site, `exports.run = () => { Object.prototype.toJSON = () => ({ type: 'done', ok: true, output: '{' }); return {}; };`);
    const result = await run(site, id);
    expect(result.status).not.toBe('succeeded');
    expect((await call(site, 'GET', '/extensions')).status).toBe(200);
  });

  it('runs only an enabled extension (409 otherwise), and reports the code’s own errors as a failed run', async () => {
    const site = await contentSite();
    const id = await installed(site, `exports.run = (input) => { if (input === 'boom') throw new TypeError('went boom'); return input; };`);
    expect(await run(site, id, { input: 'fine' })).toMatchObject({ status: 'succeeded', output: 'fine' });
    expect(await run(site, id, { input: 'boom' })).toMatchObject({ status: 'failed', output: null, error: { kind: 'error', message: 'TypeError: went boom' } });
    await call(site, 'POST', `/extensions/${id}/disable`);
    const disabled = await call(site, 'POST', `/extensions/${id}/run`, { input: 'fine' });
    expect(disabled.status).toBe(409);
    expect(disabled.body.errors[0].code).toBe('CONFLICT');
    const noEntry = await installed(site, 'exports.other = () => 1;', [], [], 'no-entry');
    expect(await run(site, noEntry)).toMatchObject({ status: 'failed', error: { kind: 'error', message: expect.stringContaining('exports no function "run"') } });
    const broken = await installed(site, 'exports.run = (', [], [], 'broken');
    expect(await run(site, broken)).toMatchObject({ status: 'failed', error: { kind: 'error', message: expect.stringContaining('does not compile') } });
  });
});

describe('the sandbox’s limits, seen through the run route', () => {
  it('kills an infinite loop at the time limit, and a memory bomb at the memory limit; the service goes on', async () => {
    const site = await contentSite();
    const loop = await installed(site, 'exports.run = () => { for (;;) {} };', [], [], 'loop');
    const timedOut = await run(site, loop, { timeoutMs: 1000 });
    expect(timedOut).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(timedOut.durationMs).toBeLessThan(5_000);
    const asyncLoop = await installed(site, 'exports.run = async () => { for (;;) { await null; } };', [], [], 'async-loop');
    expect(await run(site, asyncLoop, { timeoutMs: 1000 })).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    const bomb = await installed(site, 'exports.run = () => { const kept = []; for (;;) kept.push(new Array(100000).fill(1.5)); };', [], [], 'bomb');
    expect(await run(site, bomb)).toMatchObject({ status: 'failed', error: { kind: 'memory_limit' } });
    expect((await service.request('GET', '/utils/health')).status).toBe(200);
    expect((await call(site, 'GET', '/extensions')).body.meta.total).toBe(3);
  }, 60_000);

  it('gives the code no process, require, import, timers, network or code generation', async () => {
    const site = await contentSite();
    const id = await installed(
      site,
      `exports.run = async () => {
         const probe = (work) => { try { return String(work()); } catch (error) { return 'refused: ' + error.message; } };
         let dynamicImport;
         try { await import('node:fs'); dynamicImport = 'imported'; } catch (error) { dynamicImport = 'refused: ' + error.message; }
         return {
           types: [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof console, typeof WebAssembly.compile === 'function' ? 'wasm' : 'none', typeof Buffer],
           functionConstructor: probe(() => (function () {}).constructor('return typeof process')()),
           globalEscape: probe(() => globalThis.constructor.constructor('return process')().pid),
           evaluate: probe(() => eval('1 + 1')),
           wasm: probe(() => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))),
           dynamicImport,
         };
       };`,
    );
    const result = await run(site, id);
    expect(result.status, JSON.stringify(result)).toBe('succeeded');
    expect(result.output.types).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'wasm', 'undefined']);
    expect(result.output.functionConstructor).toMatch(/^refused: Code generation from strings disallowed/);
    expect(result.output.globalEscape).toMatch(/^refused: Code generation from strings disallowed/);
    expect(result.output.evaluate).toMatch(/^refused: Code generation from strings disallowed/);
    expect(result.output.wasm).toMatch(/^refused: /);
    expect(result.output.dynamicImport).toMatch(/^refused: /);
  });
});
