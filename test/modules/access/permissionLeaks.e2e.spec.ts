// Whatever a member asks, a read rule's limits hold: arbitrary combinations of fields, relations,
// filters, sorts, aggregates, groups, deep parameters, time travel and search never answer with a
// value of a field the rule does not list, of a row outside its condition, or of another site, and
// never with a 500. Canary strings mark everything the member must not see; the queries never
// contain them, so an error message echoing the query cannot set one off. The change feed is held to
// the same rule: GET /cdc/events, and a webhook whose creator has the member's rules.
// Every check has its control: the administrator, who may read everything, sends the same request
// and does see canaries, so a check that finds none in the member's answer could have found one; and
// the member's status is pinned against the administrator's (the same, or 403 where the query names
// what the rule hides).
// A database of its own: the webhook's deliveries go to a local receiver (private addresses allowed),
// which other test files' delivery workers must not try with their own settings.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { feedCaughtUp } from '../cdc/support.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../cdc/webhookReceiver.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type Member, type RuleInput } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_SWEEP_MS: '500' });
let site: AccessSite;
let reader: Member;
let hooks: WebhookReceiver;
const HOOK_SECRET = 'leak-fuzz-webhook-secret-0123';

const readerRules: RuleInput[] = [
  { action: 'cdc:subscribe' },
  { collection: 'articles', action: 'read', fields: ['id', 'title', 'category', 'author'], conditions: { category: { _eq: 'public' } } },
  { collection: 'authors', action: 'read', fields: ['id', 'name'] },
];

beforeAll(async () => {
  site = withHelpers(service, await createTestSite(service, 'leaks'));
  hooks = await startWebhookReceiver(HOOK_SECRET);
  // A webhook whose creator is an administrator when it creates it, then holds the member's rules
  // only: deliveries follow the creator's access as it is when they are sent. Paused until then.
  const hookRole = await createRole(site, { admin: true });
  const hookOwner = await createMember(service, site, { roleId: hookRole.id });
  const hook = await site.as(hookOwner.token, 'POST', '/cdc/subscriptions', { name: 'leak-hook', kind: 'webhook', webhook: { url: hooks.url, secret: HOOK_SECRET } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  expect((await site.admin('PATCH', `/cdc/subscriptions/${hook.body.data.id}`, { action: 'pause' })).status).toBe(200);
  await createContentModel(site);
  // A translatable field the rule does not list, so that lists in a language (X-Svc-Locale) are tried too.
  expect((await site.admin('POST', '/fields/articles', { field: 'tagline', type: 'string', options: { translatable: true } })).status).toBe(201);
  const role = await createRole(site);
  await grant(site, { roleId: role.id }, readerRules);
  reader = await createMember(service, site, { roleId: role.id });
  expect((await site.admin('PATCH', `/roles/${hookRole.id}`, { admin: false })).status).toBe(200);
  await grant(site, { roleId: hookRole.id }, readerRules);
  expect((await site.admin('PATCH', `/cdc/subscriptions/${hook.body.data.id}`, { action: 'resume' })).status).toBe(200);
  const author = await createItem(site, 'authors', { name: 'Ada', email: 'canary-email@leak.test' });
  const visible = await createItem(site, 'articles', { title: 'Visible', body: 'CANARY body of a visible row', category: 'public', rating: 4, author: author.id, tagline: { en: 'CANARY en', fr: 'CANARY fr' } });
  // A named version of the visible row: its whole snapshot (hidden fields too) is what the history routes show.
  expect((await site.admin('POST', `/items/articles/${visible.id}/versions`, { key: 'draft', name: 'Draft' })).status).toBe(201);
  const hidden = await createItem(site, 'articles', { title: 'CANARY hidden title', body: 'CANARY hidden body', category: 'CANARY-internal', rating: 9, author: author.id, tagline: { fr: 'CANARY' } });
  // History the feed carries: a hidden row changed and deleted, a visible row's hidden field changed.
  const doomed = await createItem(site, 'articles', { title: 'CANARY doomed', body: 'CANARY', category: 'CANARY-internal' });
  expect((await site.admin('PATCH', `/items/articles/${hidden.id}`, { body: 'CANARY hidden body, edited' })).status).toBe(200);
  expect((await site.admin('DELETE', `/items/articles/${doomed.id}`)).status).toBe(204);
  expect((await site.admin('PATCH', `/items/authors/${author.id}`, { email: 'canary-2@leak.test' })).status).toBe(200);
  const other = withHelpers(service, await createTestSite(service, 'leaks-other'));
  await createContentModel(other);
  await createItem(other, 'articles', { title: 'CANARY of another site', body: 'CANARY', category: 'public' });
  // The last entry the webhook's creator may read: once it arrives, every earlier one was sent or skipped.
  await createItem(site, 'authors', { name: 'Marker' });
});
afterAll(async () => {
  await hooks?.close();
});

const fieldNames = ['id', 'title', 'body', 'category', 'rating', 'author', 'author.name', 'author.email', 'author.*', 'author.articles', 'tagline', 'tagline.fr', '*', 'nope'];
const values = ['Visible', 'public', 'Ada', 'a', 'e', '1', '4', '9', 'null', 'true', '$CURRENT_USER', ''];
const operators = ['_eq', '_neq', '_lt', '_gt', '_in', '_nin', '_null', '_nnull', '_contains', '_icontains', '_starts_with', '_ends_with', '_between'];
const pick = <T>(list: readonly T[]) => fc.constantFrom(...list);

const param = fc.oneof(
  fc.array(pick(fieldNames), { minLength: 1, maxLength: 4 }).map((names) => ['fields', names.join(',')] as const),
  fc.tuple(pick(fieldNames), pick(operators), pick(values)).map(([field, operator, value]) => [`filter[${field.replace('.', '][')}][${operator}]`, value] as const),
  fc
    .tuple(pick(fieldNames), pick(operators), pick(values), pick(fieldNames), pick(values))
    .map(([a, operator, value, b, other]) => ['filter', JSON.stringify({ _or: [{ [a]: { [operator]: value } }, { [b]: { _eq: other } }] })] as const),
  fc.array(fc.tuple(fc.boolean(), pick(fieldNames)), { minLength: 1, maxLength: 2 }).map((keys) => ['sort', keys.map(([down, key]) => `${down ? '-' : ''}${key}`).join(',')] as const),
  fc.tuple(pick(['count', 'countDistinct', 'min', 'max', 'sum', 'avg']), pick([...fieldNames, '*'])).map(([fn, field]) => [`aggregate[${fn}]`, field] as const),
  pick(fieldNames).map((field) => ['groupBy', field] as const),
  fc.tuple(pick(['_fields', '_filter[name][_eq]', '_filter[email][_contains]', '_sort', '_limit']), pick(['name', 'email', '-email', 'a', '1'])).map(([key, value]) => [`deep[author][${key}]`, value] as const),
  pick(['total_count', 'none']).map((meta) => ['meta', meta] as const),
  pick([new Date(Date.now() + 60_000).toISOString(), '2000-01-01T00:00:00Z']).map((when) => ['asOf', when] as const),
);
const query = fc.array(param, { minLength: 1, maxLength: 4 }).map((params) => params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&'));

const hasCanary = (body: unknown) => JSON.stringify(body).toLowerCase().includes('canary');

function expectNoLeak(body: unknown, what: string): void {
  expect(hasCanary(body), `${what} → ${JSON.stringify(body)}`).toBe(false);
}

const ERROR_CODES: Record<number, string> = { 400: 'VALIDATION_FAILED', 403: 'PERMISSION_DENIED', 404: 'RECORD_NOT_FOUND' };
/** Where a refusal of the query may point: a query parameter (`['filter', …]`), or `['query', parameter]`. */
const QUERY_PARAMETERS = ['query', 'fields', 'filter', 'sort', 'aggregate', 'groupBy', 'deep', 'meta', 'asOf'];

/**
 * The member's status, against the administrator's answer to the same request: the same status, or
 * 403 PERMISSION_DENIED where the query names what the rule hides; each refusal with its code and a
 * path into the query. Never a 5xx, never a 200 where the administrator is refused. (A query wrong in
 * two places may be refused for either: the paths of two 400s are not compared.)
 */
function expectStatusAgainstAdmin(member: TestResponse, admin: TestResponse, what: string): void {
  const described = `${what} → member ${member.status} ${JSON.stringify(member.body)}; administrator ${admin.status} ${JSON.stringify(admin.body?.errors ?? null)}`;
  expect([200, 400, 404], described).toContain(admin.status);
  expect([admin.status, 403], described).toContain(member.status);
  if (member.status === 200) return;
  expect(member.body.errors, described).toHaveLength(1);
  expect(member.body.errors[0].code, described).toBe(ERROR_CODES[member.status]);
  if (member.status !== 404) expect(QUERY_PARAMETERS, described).toContain(member.body.errors[0].path[0]);
}

describe("a member's read rule holds against any query", () => {
  it('lists, single reads and relations show no unlisted field, no row outside the condition and no other site', async () => {
    const visible = await site.as(reader.token, 'GET', '/items/articles?fields=id');
    expect(visible.body.data).toHaveLength(1);
    const visibleId = visible.body.data[0].id as string;
    const numRuns = 400;
    // Runs where the member was answered with data while the administrator's answer held a canary:
    // there, a leak would have shown.
    let couldHaveLeaked = 0;
    await fc.assert(
      fc.asyncProperty(pick(['articles', 'authors']), query, pick(['list', 'one']), pick([undefined, 'en', 'fr']), async (collection, search, shape, locale) => {
        const path = shape === 'list' || collection === 'authors' ? `/items/${collection}?${search}` : `/items/articles/${visibleId}?${search}`;
        const headers = locale ? { 'x-svc-locale': locale } : undefined;
        const response = await site.as(reader.token, 'GET', path, undefined, headers);
        const asAdmin = await site.as(site.adminToken, 'GET', path, undefined, headers);
        expectStatusAgainstAdmin(response, asAdmin, `${path} (${locale})`);
        expectNoLeak(response.body, `${path} (${locale})`);
        if (response.status === 200 && hasCanary(asAdmin.body)) couldHaveLeaked += 1;
      }),
      { numRuns },
    );
    // About one run in five; far fewer would mean the queries mostly fail before reaching any data.
    expect(couldHaveLeaked).toBeGreaterThanOrEqual(numRuns / 10);
  });

  it('search, revisions and versions show nothing the rule hides', async () => {
    const visibleId = (await site.as(reader.token, 'GET', '/items/articles?fields=id')).body.data[0].id as string;
    const emptySearch = { data: [], meta: { total: 0, page: 1, limit: 20 } };
    // The history shows whole items: it needs read on every field, which the rule does not give.
    const wholeItems = { status: 403, code: 'PERMISSION_DENIED', path: [] };
    // Each path, what the member gets, and whether the administrator's answer to it holds a canary.
    const expected: [string, { status: number; body?: unknown; code?: string; path?: unknown[] }, boolean][] = [
      // The member reads no collection whole: every search of all collections finds nothing for it.
      ['/search?q=canary', { status: 200, body: emptySearch }, true],
      ['/search?q=hidden', { status: 200, body: emptySearch }, true],
      ['/search?q=visible', { status: 200, body: emptySearch }, true],
      ['/search?q=body&collection=articles', { status: 403, code: 'PERMISSION_DENIED', path: ['query', 'collection'] }, true],
      [`/items/articles/${visibleId}/revisions`, wholeItems, true],
      [`/items/articles/${visibleId}/versions`, wholeItems, true],
      [`/items/articles/${visibleId}/versions/draft`, wholeItems, true],
      [`/items/articles/${visibleId}/dependents`, { status: 200, body: { data: { blocking: false, dependents: [] } } }, false],
      [
        `/items/articles/${visibleId}?asOf=${new Date(Date.now() + 60_000).toISOString()}&fields=*`,
        { status: 200, body: { data: { id: visibleId, title: 'Visible', category: 'public', author: expect.any(String) } } },
        true,
      ],
    ];
    await site.service.context.daemon.drain();
    for (const [path, answer, adminSeesCanary] of expected) {
      const response = await site.as(reader.token, 'GET', path);
      expect(response.status, `${path} → ${JSON.stringify(response.body)}`).toBe(answer.status);
      if (answer.body) expect(response.body, path).toEqual(answer.body);
      if (answer.code) expect(response.body.errors, path).toEqual([expect.objectContaining({ code: answer.code, path: answer.path })]);
      expectNoLeak(response.body, path);
      const asAdmin = await site.admin('GET', path);
      expect(asAdmin.status, `${path} as the administrator → ${JSON.stringify(asAdmin.body)}`).toBe(200);
      expect(hasCanary(asAdmin.body), `${path} as the administrator → ${JSON.stringify(asAdmin.body)}`).toBe(adminSeesCanary);
    }
  });
});

describe('the change feed holds the same read rule', () => {
  const feedQuery = fc.record(
    {
      collections: fc.subarray(['articles', 'authors', 'nope'], { minLength: 1 }).map((names) => names.join(',')),
      operations: fc.subarray(['create', 'update', 'delete', 'items.delete', 'fields.create', 'collections.create', 'relations.create'], { minLength: 1 }).map((ops) => ops.join(',')),
      limit: fc.integer({ min: 1, max: 7 }).map(String),
    },
    { requiredKeys: [] },
  );

  /** Every page of the feed for this query, as `token` reads it (each page answered 200). */
  async function feedPages(token: string, base: string): Promise<unknown[]> {
    const pages: unknown[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 200; page += 1) {
      const path = `/cdc/events?${base}${cursor ? `&cursor=${cursor}` : ''}`;
      const response = await site.as(token, 'GET', path);
      expect(response.status, `${path} → ${JSON.stringify(response.body)}`).toBe(200);
      pages.push(response.body);
      cursor = response.body.meta.nextCursor as string;
      if (!response.body.meta.hasMore) break;
    }
    return pages;
  }

  it('GET /cdc/events, page after page, shows no hidden field, no row outside the condition and no other site', async () => {
    await feedCaughtUp(service);
    const numRuns = 60;
    // Runs whose query, asked by the administrator, answers a canary on some page: there, a leak would have shown.
    let couldHaveLeaked = 0;
    await fc.assert(
      fc.asyncProperty(feedQuery, async (params) => {
        const base = Object.entries(params).map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
        const pages = await feedPages(reader.token, base);
        pages.forEach((page, index) => expectNoLeak(page, `/cdc/events?${base}, page ${index + 1}`));
        if (hasCanary(await feedPages(site.adminToken, base))) couldHaveLeaked += 1;
      }),
      { numRuns },
    );
    expect(couldHaveLeaked).toBeGreaterThanOrEqual(numRuns / 10);
    // The member does read the feed: the rows and fields it may read are there; the administrator's
    // whole feed holds the canaries the member's never shows.
    const all = await site.as(reader.token, 'GET', '/cdc/events?limit=500');
    expect(all.body.data.some((entry: { snapshot: { title?: string } | null }) => entry.snapshot?.title === 'Visible')).toBe(true);
    expectNoLeak(all.body, 'the whole feed');
    expect(hasCanary((await site.admin('GET', '/cdc/events?limit=500')).body)).toBe(true);
  });

  it("a webhook delivers only what its creator's rules show", async () => {
    await hooks.waitFor((receiver) => receiver.accepted().some((delivery) => delivery.body.snapshot?.name === 'Marker'), 30_000);
    expect(hooks.requests.every((delivery) => delivery.signatureValid)).toBe(true);
    for (const delivery of hooks.requests) expectNoLeak(delivery.body, `webhook delivery ${delivery.body.type} ${delivery.body.sequence}`);
    // What the creator's rules show is delivered, so a canary in a delivery would have been seen.
    expect(hooks.accepted().some((delivery) => delivery.body.snapshot?.title === 'Visible')).toBe(true);
    expect(hooks.accepted().some((delivery) => delivery.body.snapshot?.name === 'Ada')).toBe(true);
  });
});
