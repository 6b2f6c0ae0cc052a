// Cloud sync across a restart (docs/integrations.md, "How writes reach the target"): the sync reactor
// pushes from its pipeline's own checkpoint (cloud_sync_state.synced_seq), so what was written while
// no reactor ran (the target answering 503, then the instance stopped while it waited to retry, then
// writes through a context with no server, as the CLI has, which starts no area runtime) is pushed by
// the next instance: once, as whole documents, the last write of each item winning; and what was
// pushed before the stop is not pushed again. The local document database counts every batchWrite.
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createContext } from '../../../src/boot/boot.ts';
import { makeServiceAccount, startFirestoreServer } from '../../support/cloudTargetServers.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestService, testConfig, type TestService, type TestSite } from '../../support/testService.ts';
import { person } from '../../runtime/support/commandCalls.ts';
import { feedCaughtUp, until } from '../cdc/support.ts';

const { account, publicKey } = makeServiceAccount('demo-project');
const firestore = await startFirestoreServer({ accounts: [{ client_email: account.client_email, publicKey }] });
afterAll(() => firestore.close());
// A database of the file's own: the sync reactor leads across every service on a database (the lock
// `cloud-sync`), so no other file's service may push this file's pipeline, nor this file's stopped
// instance be stood in for by another file's running one.
const database = await createFreshDatabaseForFile();
const settings = {
  DATABASE_URL: database.url,
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  SVC_CLOUD_SYNC_FIRESTORE_URL: firestore.baseUrl,
  SVC_CLOUD_SYNC_TOKEN_URL: firestore.tokenUrl,
};
/** What this file started and has not closed yet (a failed test leaves them): closed before the database is dropped. */
const running = new Set<{ close(): Promise<void> }>();
afterAll(async () => {
  for (const part of [...running].reverse()) await part.close();
});

async function startInstance(): Promise<TestService> {
  const service = await startTestService(settings);
  running.add(service);
  return service;
}

async function stop(part: { close(): Promise<void> }): Promise<void> {
  running.delete(part);
  await part.close();
}

async function call(service: TestService, site: TestSite, method: string, path: string, body?: unknown) {
  const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, body });
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  return response.body?.data;
}

interface Attempt {
  kind: string;
  status: string;
  items: number;
  failed: number;
}

const documentPath = (itemId: string) => `sites/restart/articles/${itemId}`;
const documentOf = (itemId: string) => firestore.documents.get(documentPath(itemId));

describe('cloud sync across a restart', () => {
  it('pushes what was written while no sync reactor ran, from the checkpoint, each item once as its last whole document, and nothing pushed before the stop again', { timeout: 90_000 }, async () => {
    // The first instance: a pipeline, and three items pushed by its reactor.
    const first = await startInstance();
    const site = await createTestSite(first, 'restart');
    await createCollection(first, site, 'articles', [
      { field: 'title', type: 'string' },
      { field: 'views', type: 'integer' },
    ]);
    await createCollection(first, site, 'notes', [{ field: 'text', type: 'string' }]);
    const pipeline = await call(first, site, 'POST', '/cloud-sync/pipelines', {
      name: 'Mirror',
      target: 'firestore',
      projectId: 'demo-project',
      credentials: account,
      collections: ['articles'],
      targetPath: 'sites/restart/{collection}',
    });
    const kept = (await call(first, site, 'POST', '/items/articles', { title: 'Kept', views: 1 })).id as string;
    const edited = (await call(first, site, 'POST', '/items/articles', { title: 'Edited', views: 2 })).id as string;
    const removed = (await call(first, site, 'POST', '/items/articles', { title: 'Removed', views: 3 })).id as string;
    const log = (service: TestService) => call(service, site, 'GET', `/cloud-sync/pipelines/${pipeline.id}/log`) as Promise<Attempt[]>;
    // Pushed and recorded: the checkpoint is past the three creates.
    await until(
      () => log(first),
      (attempts) => attempts.filter((attempt) => attempt.status === 'succeeded').reduce((sum, attempt) => sum + attempt.items, 0) === 3,
      20_000,
    );
    for (const id of [kept, edited, removed]) {
      const document = documentOf(id);
      expect(document, id).toBeDefined();
      // A mark the service never writes: a document pushed again loses it (a push writes the whole document).
      firestore.documents.set(documentPath(id), { ...document, pushedBeforeStop: true });
    }

    // The target fails: the reactor tries, logs the failure and keeps its checkpoint; then the
    // instance stops while it waits to try again.
    firestore.failNext(Number.MAX_SAFE_INTEGER, 503);
    await call(first, site, 'PATCH', `/items/articles/${edited}`, { title: 'Edited while the target failed' });
    await until(
      () => log(first),
      (attempts) => attempts.some((attempt) => attempt.status === 'failed'),
      20_000,
    );
    const waiting = await call(first, site, 'GET', `/cloud-sync/pipelines/${pipeline.id}`);
    expect(waiting.consecutiveFailures).toBeGreaterThanOrEqual(1);
    expect(waiting.nextAttemptAt).not.toBeNull();
    await stop(first);
    const [checkpoint] = await database.owner.query<{ synced_seq: string }>(
      sql`SELECT synced_seq FROM cloud_sync_state WHERE site_id = ${site.siteId} AND pipeline_id = ${pipeline.id}`,
    );

    // Writes while no sync reactor runs anywhere: a context without a server starts no area runtime.
    const writer = await createContext(testConfig(settings));
    running.add(writer);
    const admin = { siteId: site.siteId, principal: person(site.adminUserId, true) };
    await writer.commands.run('items.update', { collection: 'articles', id: edited, changes: { title: 'Edited while stopped' } }, admin);
    await writer.commands.run('items.delete', { collection: 'articles', id: removed }, admin);
    const [created] = await writer.commands.run<{ snapshot: { id: string } }[]>('items.create', { collection: 'articles', items: { title: 'Created while stopped', views: 4 } }, admin);
    const born = created!.snapshot.id;
    await writer.commands.run('items.update', { collection: 'articles', id: born, changes: { title: 'Created, then changed' } }, admin);
    const [note] = await writer.commands.run<{ snapshot: { id: string } }[]>('items.create', { collection: 'notes', items: { text: 'not synced' } }, admin);
    // The change feed holds every write before the next instance starts, so its first push takes them all.
    await feedCaughtUp({ context: writer });
    await stop(writer);
    expect(documentOf(edited)).toMatchObject({ title: 'Edited', pushedBeforeStop: true });
    expect(documentOf(born)).toBeUndefined();

    // The next instance, the target well again: one batch of what the checkpoint left, one write per item.
    firestore.failNext(0, 503);
    const requestsBefore = firestore.requests.length;
    const second = await startInstance();
    await until(
      async () => [documentOf(edited), documentOf(removed), documentOf(born)] as const,
      ([editedDocument, removedDocument, bornDocument]) =>
        editedDocument?.title === 'Edited while stopped' && removedDocument === undefined && bornDocument?.title === 'Created, then changed',
      30_000,
    );
    // Whole documents, each item's last write: fields the writes did not send are there, the mark is gone.
    expect(documentOf(edited)).toMatchObject({ id: edited, title: 'Edited while stopped', views: 2 });
    expect(documentOf(edited)).not.toHaveProperty('pushedBeforeStop');
    expect(documentOf(born)).toMatchObject({ id: born, title: 'Created, then changed', views: 4 });
    // Pushed before the stop and not written since: not pushed again.
    expect(documentOf(kept)).toMatchObject({ title: 'Kept', views: 1, pushedBeforeStop: true });
    expect([...firestore.documents.keys()].some((key) => key.includes(note!.snapshot.id))).toBe(false);

    // One write more through the new instance, once it has recorded its push: every request the
    // target received since the restart is the resumed batch (three items) and then this one.
    await until(
      () => log(second),
      (attempts) => attempts[0]?.status === 'succeeded',
      20_000,
    );
    const later = (await call(second, site, 'POST', '/items/articles', { title: 'After the restart', views: 5 })).id as string;
    await until(
      async () => documentOf(later),
      (document) => document?.title === 'After the restart',
    );
    const batchPath = `/v1/projects/demo-project/databases/(default)/documents:batchWrite`;
    expect(firestore.requests.slice(requestsBefore)).toEqual([
      { path: batchPath, writes: 3, authorized: true },
      { path: batchPath, writes: 1, authorized: true },
    ]);
    const attempts = await until(
      () => log(second),
      (entries) => entries[0]?.items === 1,
    );
    expect(attempts.slice(0, 3)).toMatchObject([
      { kind: 'sync', status: 'succeeded', items: 1, failed: 0 },
      { kind: 'sync', status: 'succeeded', items: 3, failed: 0 },
      { kind: 'sync', status: 'failed', items: 0 },
    ]);
    // The new instance started where the stopped one's checkpoint was.
    const [resumed] = await database.owner.query<{ from_seq: string }>(
      sql`SELECT from_seq FROM cloud_sync_log WHERE site_id = ${site.siteId} AND pipeline_id = ${pipeline.id} AND status = 'succeeded' AND items = 3 ORDER BY attempt DESC LIMIT 1`,
    );
    expect(resumed!.from_seq).toBe(checkpoint!.synced_seq);
  });
});
