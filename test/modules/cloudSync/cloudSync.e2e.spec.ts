// Cloud-sync pipelines end to end: real HTTP and PostgreSQL, pushing to local servers that speak the
// document database's REST API (with the service account's OAuth JWT grant) and the realtime
// database's (with its secret). Credentials are sealed, write-only and never answered or logged.
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { makeServiceAccount, startFirestoreServer, startRealtimeDatabaseServer } from '../../support/cloudTargetServers.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { until } from '../cdc/support.ts';

const { account, publicKey } = makeServiceAccount('demo-project');
const stranger = makeServiceAccount('demo-project');
const firestore = await startFirestoreServer({ accounts: [{ client_email: account.client_email, publicKey }] });
const RTDB_SECRET = 'rtdb-secret-0123456789-abcdef';
const rtdb = await startRealtimeDatabaseServer({ secret: RTDB_SECRET });
afterAll(async () => {
  await firestore.close();
  await rtdb.close();
});
// A database of the file's own: the sync reactor leads across every service on a database, and
// another test file's service (private addresses refused) must not push this file's pipelines.
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({
  DATABASE_URL: database.url,
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  SVC_CLOUD_SYNC_FIRESTORE_URL: firestore.baseUrl,
  SVC_CLOUD_SYNC_TOKEN_URL: firestore.tokenUrl,
  SVC_CLOUD_SYNC_BACKFILL_LIMIT: '7',
});
const owner = database.owner;
const secrets = [account.private_key.split('\n')[1]!, RTDB_SECRET];

/** Every answer of this file, to look for a secret in. */
const answers: string[] = [];

async function call(site: TestSite, method: string, path: string, body?: unknown) {
  const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, body });
  answers.push(JSON.stringify(response.body));
  return response;
}

async function contentSite(): Promise<TestSite> {
  const site = await createTestSite(service, 'sync');
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'views', type: 'integer' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
  ]);
  await createCollection(service, site, 'notes', [{ field: 'text', type: 'string' }]);
  return site;
}

const firestoreBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Mirror',
  target: 'firestore',
  projectId: 'demo-project',
  credentials: { ...account, type: 'service_account', private_key_id: 'k1' },
  collections: ['articles'],
  targetPath: 'sites/main/{collection}',
  ...overrides,
});

const rtdbBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Live',
  target: 'realtime_database',
  projectId: 'demo-project',
  credentials: { databaseUrl: rtdb.url, secret: RTDB_SECRET },
  collections: ['articles', 'notes'],
  targetPath: 'cms/{collection}',
  ...overrides,
});

async function createPipeline(site: TestSite, body: Record<string, unknown>) {
  const created = await call(site, 'POST', '/cloud-sync/pipelines', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { id: string };
}

describe('cloud-sync pipelines', () => {
  it('creates a pipeline answering the spec shape without credentials, and lists, reads, renames and deletes it', async () => {
    const site = await contentSite();
    const created = await call(site, 'POST', '/cloud-sync/pipelines', firestoreBody());
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Mirror',
      target: 'firestore',
      status: 'active',
      projectId: 'demo-project',
      collections: ['articles'],
      targetPath: 'sites/main/{collection}',
      syncOnCreate: true,
      syncOnUpdate: true,
      syncOnDelete: true,
      lastSyncAt: null,
      lastSyncItemCount: null,
    });
    expect(created.body.data).not.toHaveProperty('credentials');
    const id = created.body.data.id;
    expect((await call(site, 'GET', '/cloud-sync/pipelines')).body).toMatchObject({ data: [{ id }], meta: { total: 1 } });
    expect((await call(site, 'GET', `/cloud-sync/pipelines/${id}`)).body.data.id).toBe(id);
    const renamed = await call(site, 'PATCH', `/cloud-sync/pipelines/${id}`, { name: 'Mirror 2', syncOnDelete: false });
    expect(renamed.body.data).toMatchObject({ name: 'Mirror 2', syncOnDelete: false });
    expect((await call(site, 'POST', '/cloud-sync/pipelines', firestoreBody({ name: 'mirror 2' }))).status).toBe(409);
    expect((await call(site, 'DELETE', `/cloud-sync/pipelines/${id}`)).status).toBe(204);
    expect((await call(site, 'GET', `/cloud-sync/pipelines/${id}`)).status).toBe(404);
    expect((await call(site, 'GET', `/cloud-sync/pipelines/${id}/log`)).status).toBe(404);
  });

  it('refuses bodies and credentials that do not match the target with 400 VALIDATION_ERROR and a path, writing nothing', async () => {
    const site = await contentSite();
    const { credentials: _credentials, ...withoutCredentials } = firestoreBody();
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [firestoreBody({ target: 'mongodb' }), ['body', 'target']],
      [withoutCredentials, ['body', 'credentials']],
      [firestoreBody({ credentials: { project_id: 'demo-project', client_email: account.client_email } }), ['body', 'credentials', 'private_key']],
      [firestoreBody({ credentials: { ...account, private_key: 'not a key' } }), ['body', 'credentials', 'private_key']],
      [firestoreBody({ credentials: { databaseUrl: rtdb.url, secret: 's' } }), ['body', 'credentials', 'project_id']],
      [rtdbBody({ credentials: account }), ['body', 'credentials']],
      [rtdbBody({ credentials: { databaseUrl: 'ftp://example.com', secret: 's' } }), ['body', 'credentials', 'databaseUrl']],
      [rtdbBody({ credentials: { databaseUrl: `${rtdb.url}?auth=x`, secret: 's' } }), ['body', 'credentials', 'databaseUrl']],
      [firestoreBody({ collections: [] }), ['body', 'collections']],
      [firestoreBody({ collections: ['nope'] }), ['body', 'collections', 0]],
      [firestoreBody({ targetPath: '../{collection}' }), ['body', 'targetPath']],
      [firestoreBody({ targetPath: 'sites/{collection}' }), ['body', 'targetPath']],
      [firestoreBody({ syncOnCreate: 'yes' }), ['body', 'syncOnCreate']],
      [firestoreBody({ extra: 1 }), ['body']],
      [firestoreBody({ name: '' }), ['body', 'name']],
    ];
    for (const [body, path] of cases) {
      const refused = await call(site, 'POST', '/cloud-sync/pipelines', body);
      expect(refused.status, JSON.stringify([body, refused.body])).toBe(400);
      expect(refused.body.errors[0].code).toBe('VALIDATION_ERROR');
      expect(refused.body.errors[0].path.slice(0, path.length), JSON.stringify(refused.body)).toEqual(path);
    }
    const { id } = await createPipeline(site, firestoreBody());
    const patchCases: [Record<string, unknown>, (string | number)[]][] = [
      [{ target: 'realtime_database' }, ['body']],
      [{ credentials: { databaseUrl: rtdb.url, secret: 's' } }, ['body', 'credentials']],
      [{ targetPath: 'a/{collection}' }, ['body', 'targetPath']],
      [{ collections: ['articles', 'missing'] }, ['body', 'collections', 1]],
    ];
    for (const [body, path] of patchCases) {
      const refused = await call(site, 'PATCH', `/cloud-sync/pipelines/${id}`, body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors[0].code).toBe('VALIDATION_ERROR');
      expect(refused.body.errors[0].path.slice(0, path.length)).toEqual(path);
    }
    const list = await call(site, 'GET', '/cloud-sync/pipelines');
    expect(list.body.meta.total).toBe(1);
    const [events] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type LIKE 'cloud_sync_pipeline.%'`);
    expect(events!.count).toBe(1);
  });

  it('needs a site administrator, and never shows or changes another site’s pipelines', async () => {
    const site = await contentSite();
    const other = await contentSite();
    const { id } = await createPipeline(site, firestoreBody());
    expect((await service.request('GET', '/cloud-sync/pipelines', { site: site.siteId })).status).toBe(401);
    const member = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email: `m@${site.siteId}.test`, password: 'correct horse battery staple' } });
    expect(member.status).toBe(201);
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: `m@${site.siteId}.test`, password: 'correct horse battery staple' } });
    const asMember = await service.request('GET', '/cloud-sync/pipelines', { site: site.siteId, token: login.body.data.token });
    expect(asMember.status).toBe(403);
    for (const [method, path, body] of [
      ['GET', `/cloud-sync/pipelines/${id}`, undefined],
      ['PATCH', `/cloud-sync/pipelines/${id}`, { name: 'Taken' }],
      ['GET', `/cloud-sync/pipelines/${id}/log`, undefined],
      ['POST', `/cloud-sync/pipelines/${id}/backfill`, undefined],
      ['DELETE', `/cloud-sync/pipelines/${id}`, undefined],
    ] as const) {
      expect((await call(other, method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await call(other, 'GET', '/cloud-sync/pipelines')).body.meta.total).toBe(0);
    expect((await call(site, 'GET', `/cloud-sync/pipelines/${id}`)).body.data.name).toBe('Mirror');
    expect((await call(site, 'GET', '/cloud-sync/pipelines/not-a-uuid')).status).toBe(404);
  });

  it('pushes creates, updates and deletes of the listed collections to the document database, without pii, and logs each attempt', async () => {
    const site = await contentSite();
    const { id } = await createPipeline(site, firestoreBody());
    const created = await call(site, 'POST', '/items/articles', { title: 'Hello', views: 1, email: 'reader@example.com' });
    expect(created.status).toBe(201);
    const itemId = created.body.data.id as string;
    const path = `sites/main/articles/${itemId}`;
    await until(async () => firestore.documents.get(path), (document) => document?.title === 'Hello');
    const pushed = firestore.documents.get(path)!;
    expect(pushed).toMatchObject({ id: itemId, title: 'Hello', views: 1 });
    expect(pushed).not.toHaveProperty('email');
    expect(pushed).not.toHaveProperty('userCreated');
    await call(site, 'PATCH', `/items/articles/${itemId}`, { title: 'Hello again' });
    await until(async () => firestore.documents.get(path), (document) => document?.title === 'Hello again');
    // Another collection is not pushed.
    const note = await call(site, 'POST', '/items/notes', { text: 'private' });
    await call(site, 'DELETE', `/items/articles/${itemId}`);
    await until(async () => firestore.documents.has(path), (present) => !present);
    expect([...firestore.documents.keys()].some((key) => key.includes(note.body.data.id))).toBe(false);
    const pipeline = await until(
      async () => (await call(site, 'GET', `/cloud-sync/pipelines/${id}`)).body.data,
      (data) => data.lastSyncAt !== null,
    );
    expect(pipeline.lastSyncItemCount).toBeGreaterThanOrEqual(1);
    const log = await call(site, 'GET', `/cloud-sync/pipelines/${id}/log`);
    expect(log.status).toBe(200);
    expect(log.body.data.length).toBeGreaterThanOrEqual(1);
    expect(log.body.data[0]).toMatchObject({ kind: 'sync', status: 'succeeded', failed: 0, error: null });
  });

  it('honours syncOnCreate, syncOnUpdate and syncOnDelete', async () => {
    const site = await contentSite();
    await createPipeline(site, rtdbBody({ syncOnCreate: false, syncOnDelete: false, collections: ['notes'] }));
    const note = (await call(site, 'POST', '/items/notes', { text: 'first' })).body.data;
    const marker = (await call(site, 'POST', '/items/notes', { text: 'marker' })).body.data;
    await call(site, 'PATCH', `/items/notes/${marker.id}`, { text: 'marker 2' });
    const tree = () => (rtdb.data.cms as Record<string, Record<string, Record<string, unknown>>> | undefined)?.notes ?? {};
    await until(async () => tree()[marker.id], (value) => value?.text === 'marker 2');
    expect(tree()[note.id]).toBeUndefined();
    await call(site, 'DELETE', `/items/notes/${marker.id}`);
    await call(site, 'PATCH', `/items/notes/${note.id}`, { text: 'second' });
    await until(async () => tree()[note.id], (value) => value?.text === 'second');
    expect(tree()[marker.id]).toMatchObject({ text: 'marker 2' });
  });

  it('retries a failing target with backoff, logging each failed attempt, and never blocks another pipeline', async () => {
    const site = await contentSite();
    const failing = await createPipeline(site, rtdbBody({ name: 'Broken', credentials: { databaseUrl: rtdb.url, secret: 'wrong-secret' }, collections: ['notes'] }));
    const working = await createPipeline(site, firestoreBody({ collections: ['notes'], targetPath: '{collection}' }));
    const note = (await call(site, 'POST', '/items/notes', { text: 'both' })).body.data;
    await until(async () => firestore.documents.get(`notes/${note.id}`), (document) => document?.text === 'both');
    const failed = await until(
      async () => (await call(site, 'GET', `/cloud-sync/pipelines/${failing.id}/log`)).body.data,
      (attempts: any[]) => attempts.length > 0,
    );
    expect(failed[0]).toMatchObject({ kind: 'sync', status: 'failed', items: 0, failed: 1 });
    expect(failed[0].error).toMatch(/401|denied|refused/i);
    const view = (await call(site, 'GET', `/cloud-sync/pipelines/${failing.id}`)).body.data;
    expect(view.consecutiveFailures).toBeGreaterThanOrEqual(1);
    expect(view.nextAttemptAt).not.toBeNull();
    // Rotating the credentials ends the wait: the entry lands.
    const rotated = await call(site, 'PATCH', `/cloud-sync/pipelines/${failing.id}`, { credentials: { databaseUrl: rtdb.url, secret: RTDB_SECRET } });
    expect(rotated.status).toBe(200);
    await until(async () => (rtdb.data.cms as Record<string, Record<string, unknown>> | undefined)?.notes?.[note.id], (value) => value !== undefined);
    expect((await call(site, 'GET', `/cloud-sync/pipelines/${working.id}`)).body.data.consecutiveFailures).toBe(0);
  });

  it('retries a batch the target answered 503 to, and the entries land once it recovers', async () => {
    const site = await contentSite();
    const { id } = await createPipeline(site, firestoreBody({ collections: ['notes'], targetPath: 'retry/x/{collection}' }));
    firestore.failNext(1, 503);
    const note = (await call(site, 'POST', '/items/notes', { text: 'later' })).body.data;
    await until(async () => firestore.documents.get(`retry/x/notes/${note.id}`), (document) => document?.text === 'later');
    // The attempt is recorded once the target answered.
    const attempts = await until(
      async () => (await call(site, 'GET', `/cloud-sync/pipelines/${id}/log`)).body.data as { status: string }[],
      (data) => data.length === 2,
    );
    expect(attempts.map((attempt) => attempt.status)).toEqual(['succeeded', 'failed']);
  });

  it('backfills every current item in bounded calls that resume where the last stopped', async () => {
    const site = await contentSite();
    for (let n = 0; n < 10; n += 1) await call(site, 'POST', '/items/articles', { title: `A${n}`, email: `a${n}@example.com` });
    for (let n = 0; n < 3; n += 1) await call(site, 'POST', '/items/notes', { text: `N${n}` });
    const { id } = await createPipeline(site, rtdbBody({ name: 'Backfill', targetPath: 'backfill/{collection}' }));
    const first = await call(site, 'POST', `/cloud-sync/pipelines/${id}/backfill`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ scanned: 7, pushed: 7, failed: 0, truncated: true });
    const second = await call(site, 'POST', `/cloud-sync/pipelines/${id}/backfill`);
    expect(second.body.data).toEqual({ scanned: 6, pushed: 6, failed: 0, truncated: false });
    const tree = rtdb.data.backfill as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(tree.articles!)).toHaveLength(10);
    expect(Object.keys(tree.notes!)).toHaveLength(3);
    expect(Object.values(tree.articles!).every((article) => !('email' in article))).toBe(true);
    // Done: the next call starts over.
    expect((await call(site, 'POST', `/cloud-sync/pipelines/${id}/backfill`)).body.data).toEqual({ scanned: 7, pushed: 7, failed: 0, truncated: true });
  });

  it('seals the credentials: not in events, the read model or any answer; a rotation destroys the old sealed value; a token from another key is refused', async () => {
    const site = await contentSite();
    const { id } = await createPipeline(site, firestoreBody());
    const before = await owner.query<{ id: string }>(sql`SELECT id FROM sensitive_values WHERE site_id = ${site.siteId} AND collection = '$cloud-sync'`);
    expect(before).toHaveLength(1);
    await call(site, 'PATCH', `/cloud-sync/pipelines/${id}`, { credentials: { ...stranger.account } });
    const after = await owner.query<{ id: string }>(sql`SELECT id FROM sensitive_values WHERE site_id = ${site.siteId} AND collection = '$cloud-sync'`);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).not.toBe(before[0]!.id);
    // The stranger's key is not registered with the token endpoint: pushes fail, with a logged reason.
    await call(site, 'POST', '/items/articles', { title: 'Refused' });
    const attempts = await until(
      async () => (await call(site, 'GET', `/cloud-sync/pipelines/${id}/log`)).body.data,
      (data: any[]) => data.length > 0,
    );
    expect(attempts[0].status).toBe('failed');
    const events = await owner.query<{ data: unknown }>(sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type LIKE 'cloud_sync_pipeline.%'`);
    const rows = await owner.query(sql`SELECT * FROM cloud_sync_pipelines WHERE site_id = ${site.siteId}`);
    const logs = await owner.query(sql`SELECT * FROM cloud_sync_log WHERE site_id = ${site.siteId}`);
    const stored = JSON.stringify([events, rows, logs]);
    for (const secret of [...secrets, stranger.account.private_key.split('\n')[1]!]) {
      expect(stored).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
    }
    await call(site, 'DELETE', `/cloud-sync/pipelines/${id}`);
    expect(await owner.query(sql`SELECT id FROM sensitive_values WHERE site_id = ${site.siteId} AND collection = '$cloud-sync'`)).toHaveLength(0);
    expect(await owner.query(sql`SELECT 1 FROM cloud_sync_log WHERE site_id = ${site.siteId}`)).toHaveLength(0);
  });
});
