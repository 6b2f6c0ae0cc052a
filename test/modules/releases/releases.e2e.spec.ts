// /releases over real HTTP and PostgreSQL: the CRUD, the draft/scheduled states, every refusal with
// its code and path (and nothing written), another site's releases and items out of reach.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { withCall, type ContentSite } from '../items/support.ts';

const service = await startTestServiceForFile();
const future = () => new Date(Date.now() + 86_400_000).toISOString();
const past = () => new Date(Date.now() - 60_000).toISOString();

async function contentSite(): Promise<ContentSite & { articleIds: string[] }> {
  const site = withCall(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  const articleIds: string[] = [];
  for (const title of ['One', 'Two', 'Three']) {
    const created = await site.call('POST', '/items/articles', { title, status: 'draft' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    articleIds.push(created.body.data.id);
  }
  return { ...site, articleIds };
}

const entry = (itemId: string, extra: Record<string, unknown> = {}) => ({ collection: 'articles', itemId, targetStatus: 'published', ...extra });

async function releaseCount(site: TestSite): Promise<number> {
  return (await service.request('GET', '/releases', { site: site.siteId, token: site.adminToken })).body.meta.total;
}

function expectError(response: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

describe('/releases', () => {
  it('creates a draft, schedules and unschedules it, edits its items, lists and deletes it', async () => {
    const site = await contentSite();
    const [a, b, c] = site.articleIds as [string, string, string];
    const created = await site.call('POST', '/releases', { name: 'Launch', addItems: [entry(a), entry(b, { targetStatus: 'archived' })] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const release = created.body.data;
    expect(release).toMatchObject({ name: 'Launch', status: 'draft', atomicityMode: 'all_or_nothing', publishAt: null, maintenanceWindow: null, itemCount: 2 });
    expect(release.items.map((item: { itemId: string; targetStatus: string }) => [item.itemId, item.targetStatus])).toEqual([
      [a, 'published'],
      [b, 'archived'],
    ]);
    expect((await site.call('GET', `/releases/${release.id}`)).body.data).toEqual(release);

    const publishAt = future();
    const window = { windows: [{ dow: 2, start: '22:00', end: '23:30' }] };
    const scheduled = await site.call('PATCH', `/releases/${release.id}`, { publishAt, maintenanceWindow: window, atomicityMode: 'best_effort' });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    expect(scheduled.body.data).toMatchObject({ status: 'scheduled', publishAt, maintenanceWindow: window, atomicityMode: 'best_effort' });

    const edited = await site.call('PATCH', `/releases/${release.id}`, { removeItems: [{ collection: 'articles', itemId: a }], addItems: [entry(c), entry(b)] });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.items.map((item: { itemId: string; targetStatus: string }) => [item.itemId, item.targetStatus]).sort()).toEqual(
      [[b, 'published'], [c, 'published']].sort(),
    );
    const unscheduled = await site.call('PATCH', `/releases/${release.id}`, { publishAt: null, name: 'Launch later' });
    expect(unscheduled.body.data).toMatchObject({ status: 'draft', publishAt: null, name: 'Launch later' });

    const other = await site.call('POST', '/releases', { name: 'Timed', publishAt: future() });
    expect(other.body.data.status).toBe('scheduled');
    const all = await site.call('GET', '/releases');
    expect(all.body.meta.total).toBe(2);
    expect(all.body.data.map((row: { name: string }) => row.name)).toEqual(['Timed', 'Launch later']);
    const drafts = await site.call('GET', '/releases?status=draft&limit=1&page=1');
    expect(drafts.body).toMatchObject({ data: [{ id: release.id, itemCount: 2 }], meta: { total: 1, page: 1, pageSize: 1 } });
    expect((await site.call('GET', '/releases?status=scheduled')).body.data.map((row: { id: string }) => row.id)).toEqual([other.body.data.id]);

    expect((await site.call('DELETE', `/releases/${release.id}`)).status).toBe(204);
    expect((await site.call('GET', `/releases/${release.id}`)).status).toBe(404);
    expectError(await site.call('DELETE', `/releases/${release.id}`), 404, 'NOT_FOUND');
    expectError(await site.call('PATCH', `/releases/${release.id}`, { name: 'Back' }), 404, 'NOT_FOUND');
  });

  it('answers 422 VALIDATION_FAILED with the path of each bad field, and writes nothing', async () => {
    const site = await contentSite();
    const a = site.articleIds[0]!;
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['body', 'name']],
      [{ name: '  ' }, ['body', 'name']],
      [{ name: 'R', atomicityMode: 'sometimes' }, ['body', 'atomicityMode']],
      [{ name: 'R', publishAt: 'tomorrow' }, ['body', 'publishAt']],
      [{ name: 'R', publishAt: past() }, ['body', 'publishAt']],
      [{ name: 'R', maintenanceWindow: { windows: [{ dow: 7, start: '01:00', end: '02:00' }] } }, ['body', 'maintenanceWindow', 'windows', 0, 'dow']],
      [{ name: 'R', maintenanceWindow: { windows: [{ dow: 1, start: '1:00', end: '02:00' }] } }, ['body', 'maintenanceWindow', 'windows', 0, 'start']],
      [{ name: 'R', maintenanceWindow: { windows: [{ dow: 1, start: '03:00', end: '02:00' }] } }, ['body', 'maintenanceWindow', 'windows', 0, 'end']],
      [{ name: 'R', maintenanceWindow: { days: [] } }, ['body', 'maintenanceWindow', 'windows']],
      [{ name: 'R', addItems: [entry(a), { collection: 'articles', itemId: a }] }, ['body', 'addItems', 1, 'targetStatus']],
      [{ name: 'R', addItems: [entry(a, { revisionId: 'nope' })] }, ['body', 'addItems', 0, 'revisionId']],
      [{ name: 'R', addItems: [entry(a), entry(a)] }, ['body', 'addItems', 1]],
    ];
    for (const [body, path] of cases) {
      const response = await site.call('POST', '/releases', body);
      expectError(response, 422, 'VALIDATION_FAILED', path);
    }
    const release = (await site.call('POST', '/releases', { name: 'R' })).body.data;
    expectError(await site.call('PATCH', `/releases/${release.id}`, { publishAt: past() }), 422, 'VALIDATION_FAILED', ['body', 'publishAt']);
    expectError(await site.call('PATCH', `/releases/${release.id}`, { name: '' }), 422, 'VALIDATION_FAILED', ['body', 'name']);
    expectError(await site.call('PATCH', `/releases/${release.id}`, { removeItems: [{ collection: 'articles' }] }), 422, 'VALIDATION_FAILED', [
      'body',
      'removeItems',
      0,
      'itemId',
    ]);
    expect(await releaseCount(site)).toBe(1);
    expect((await site.call('GET', `/releases/${release.id}`)).body.data).toMatchObject({ name: 'R', publishAt: null, itemCount: 0 });
  });

  it('refuses items that are not live items of this site (404 ITEM_NOT_FOUND), and removing one the release does not hold', async () => {
    const site = await contentSite();
    const elsewhere = await contentSite();
    const [a, b] = site.articleIds as [string, string];
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(a), entry('missing')] }), 404, 'ITEM_NOT_FOUND', ['body', 'addItems', 1]);
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [{ ...entry(a), collection: 'pages' }] }), 404, 'ITEM_NOT_FOUND', ['body', 'addItems', 0]);
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(elsewhere.articleIds[0]!)] }), 404, 'ITEM_NOT_FOUND', ['body', 'addItems', 0]);
    expect((await site.call('DELETE', `/items/articles/${b}`)).status).toBe(204);
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(b)] }), 404, 'ITEM_NOT_FOUND', ['body', 'addItems', 0]);
    expect(await releaseCount(site)).toBe(0);

    const release = (await site.call('POST', '/releases', { name: 'R', addItems: [entry(a)] })).body.data;
    expectError(await site.call('PATCH', `/releases/${release.id}`, { name: 'Renamed', addItems: [entry(elsewhere.articleIds[1]!)] }), 404, 'ITEM_NOT_FOUND', [
      'body',
      'addItems',
      0,
    ]);
    expectError(await site.call('PATCH', `/releases/${release.id}`, { removeItems: [{ collection: 'articles', itemId: b }] }), 404, 'ITEM_NOT_FOUND', [
      'body',
      'removeItems',
      0,
    ]);
    expect((await site.call('GET', `/releases/${release.id}`)).body.data).toMatchObject({ name: 'R', itemCount: 1 });
  });

  it('pins committed revisions of the item only: 409 REVISION_STAGED for a draft one, 404 RECORD_NOT_FOUND for another item\'s', async () => {
    const site = await contentSite();
    const [a, b] = site.articleIds as [string, string];
    expect((await site.call('PATCH', `/items/articles/${a}`, { title: 'One, edited' })).status).toBe(200);
    expect((await site.call('PATCH', `/items/articles/${a}`, { title: 'Staged' }, { 'x-svc-draft': 'true' })).status).toBe(200);
    const revisions = (await site.call('GET', `/items/articles/${a}/revisions`)).body.data as { revisionId: string; staged: boolean }[];
    const staged = revisions.find((revision) => revision.staged)!;
    const committed = revisions.find((revision) => !revision.staged)!;
    const path = ['body', 'addItems', 0, 'revisionId'];
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(a, { revisionId: staged.revisionId })] }), 409, 'REVISION_STAGED', path);
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(b, { revisionId: committed.revisionId })] }), 404, 'RECORD_NOT_FOUND', path);
    expectError(await site.call('POST', '/releases', { name: 'R', addItems: [entry(a, { revisionId: '0190d6a0-0000-7000-8000-000000000000' })] }), 404, 'RECORD_NOT_FOUND', path);
    expect(await releaseCount(site)).toBe(0);

    const pinned = await site.call('POST', '/releases', { name: 'R', addItems: [entry(a, { revisionId: committed.revisionId })] });
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(201);
    expect(pinned.body.data.items[0]).toMatchObject({ itemId: a, revisionId: committed.revisionId });
    expectError(await site.call('PATCH', `/releases/${pinned.body.data.id}`, { addItems: [entry(a, { revisionId: staged.revisionId })] }), 409, 'REVISION_STAGED', path);
    expect((await site.call('GET', `/releases/${pinned.body.data.id}`)).body.data.items[0].revisionId).toBe(committed.revisionId);
  });

  it('keeps another site\'s releases out of reach (404) and refuses members (403)', async () => {
    const site = await contentSite();
    const other = withCall(service, await createTestSite(service));
    const release = (await site.call('POST', '/releases', { name: 'Mine', addItems: [entry(site.articleIds[0]!)] })).body.data;
    expectError(await other.call('GET', `/releases/${release.id}`), 404, 'NOT_FOUND');
    expectError(await other.call('PATCH', `/releases/${release.id}`, { name: 'Theirs' }), 404, 'NOT_FOUND');
    expectError(await other.call('DELETE', `/releases/${release.id}`), 404, 'NOT_FOUND');
    expect((await other.call('GET', '/releases')).body.meta.total).toBe(0);
    expectError(await site.call('GET', '/releases/not-a-uuid'), 404, 'NOT_FOUND');

    const member = await createMember(service, site);
    const asMember = (method: string, path: string, body?: unknown) =>
      service.request(method, path, { site: site.siteId, token: member.token, ...(body === undefined ? {} : { body }) });
    expectError(await asMember('GET', '/releases'), 403, 'PERMISSION_DENIED');
    expectError(await asMember('GET', `/releases/${release.id}`), 403, 'PERMISSION_DENIED');
    expectError(await asMember('POST', '/releases', { name: 'X' }), 403, 'PERMISSION_DENIED');
    expectError(await asMember('PATCH', `/releases/${release.id}`, { name: 'X' }), 403, 'PERMISSION_DENIED');
    expectError(await asMember('DELETE', `/releases/${release.id}`), 403, 'PERMISSION_DENIED');
    expect((await site.call('GET', `/releases/${release.id}`)).body.data.name).toBe('Mine');
  });
});
