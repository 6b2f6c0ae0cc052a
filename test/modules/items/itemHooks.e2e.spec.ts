// Item-write hooks (src/runtime/itemHooks.ts, docs/architecture.md "Item-write hooks"): a hook
// registered on the context refuses a write with its own error and nothing is written; an
// after-commit hook sees the committed item on create, update and delete, and cannot fail the request.
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { CommittedItem, ItemWriteHook } from '../../../src/runtime/itemHooks.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withCall, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const COLLECTION = 'hooked_notes';

const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});
function register(hook: ItemWriteHook): void {
  removals.push(service.context.itemHooks.register(hook));
}

async function notesSite(): Promise<ContentSite> {
  const site = withCall(service, await createTestSite(service));
  await createCollection(service, site, COLLECTION, [{ field: 'title', type: 'string' }]);
  return site;
}

/** The item as the read model has it, read in a transaction of its own: what has committed. */
async function stored(siteId: string, itemId: string): Promise<{ version: number; title: string | null; deleted: boolean } | null> {
  const [row] = await service.context.database.withSite(siteId, (tx) =>
    tx.query<{ version: number; title: string | null; deleted: boolean }>(
      sql`SELECT version, data ->> 'title' AS title, deleted_at IS NOT NULL AS deleted FROM items WHERE site_id = ${siteId} AND collection = ${COLLECTION} AND id = ${itemId}`,
    ),
  );
  return row ?? null;
}

async function itemEvents(siteId: string): Promise<number> {
  const [row] = await service.context.database.withSite(siteId, (tx) =>
    tx.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${siteId} AND type LIKE 'item.%'`),
  );
  return row!.count;
}

const refusal = (reason: string) => new AppError('CONFLICT', `Refused by the test hook: ${reason}`, { path: ['body', 'title'], extensions: { reason } });

describe('item-write hooks', () => {
  it('lets a before-write hook refuse a create, an update and a delete with its error, and writes nothing', async () => {
    const site = await notesSite();
    register({
      name: 'test-refusal',
      collections: [COLLECTION],
      async beforeWrite(write) {
        if (write.siteId !== site.siteId) return;
        if (write.kind === 'delete' && write.before?.title === 'Keep me') throw refusal('KEEP');
        if (write.changes.title === 'Forbidden') throw refusal(`NO_${write.kind.toUpperCase()}`);
      },
    });

    const created = await site.call('POST', `/items/${COLLECTION}`, { title: 'Keep me' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.data.id;
    const events = await itemEvents(site.siteId);

    // A refused create, alone and beside an accepted one in a bulk request: nothing is created.
    const refusedCreate = await site.call('POST', `/items/${COLLECTION}`, { title: 'Forbidden' });
    expect(refusedCreate.status).toBe(409);
    expect(refusedCreate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'title'], extensions: { reason: 'NO_CREATE' } });
    const refusedBulk = await site.call('POST', `/items/${COLLECTION}`, [{ title: 'Fine' }, { title: 'Forbidden' }]);
    expect(refusedBulk.status).toBe(409);
    // A refused create fails alone: a create of the same moment (group commit) is written.
    const [accepted, refused] = await Promise.all([
      site.call('POST', `/items/${COLLECTION}`, { title: 'Fine' }),
      site.call('POST', `/items/${COLLECTION}`, { title: 'Forbidden' }),
    ]);
    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(409);
    expect(await itemEvents(site.siteId)).toBe(events + 1);

    const refusedUpdate = await site.call('PATCH', `/items/${COLLECTION}/${id}`, { title: 'Forbidden' });
    expect(refusedUpdate.status).toBe(409);
    expect(refusedUpdate.body.errors[0]).toMatchObject({ code: 'CONFLICT', extensions: { reason: 'NO_UPDATE' } });
    const refusedDelete = await site.call('DELETE', `/items/${COLLECTION}/${id}`);
    expect(refusedDelete.status).toBe(409);
    expect(refusedDelete.body.errors[0]).toMatchObject({ code: 'CONFLICT', extensions: { reason: 'KEEP' } });
    expect(await stored(site.siteId, id)).toEqual({ version: 1, title: 'Keep me', deleted: false });
    expect(await itemEvents(site.siteId)).toBe(events + 1);

    // What the hook does not refuse goes through.
    expect((await site.call('PATCH', `/items/${COLLECTION}/${id}`, { title: 'Renamed' })).status).toBe(200);
    expect(await stored(site.siteId, id)).toEqual({ version: 2, title: 'Renamed', deleted: false });
  });

  it('runs after-commit hooks on create, update and delete with the committed item', async () => {
    const site = await notesSite();
    const seen: { write: CommittedItem; committed: Awaited<ReturnType<typeof stored>> }[] = [];
    register({
      name: 'test-observer',
      collections: [COLLECTION],
      async afterCommit(write) {
        if (write.siteId !== site.siteId) return;
        // Read in another transaction: the write is visible, so it has committed.
        seen.push({ write, committed: await stored(site.siteId, write.itemId) });
      },
    });

    const created = await site.call('POST', `/items/${COLLECTION}`, { title: 'First' });
    const id: string = created.body.data.id;
    expect((await site.call('PATCH', `/items/${COLLECTION}/${id}`, { title: 'Second' })).status).toBe(200);
    // A write that changes nothing runs no hook.
    expect((await site.call('PATCH', `/items/${COLLECTION}/${id}`, { title: 'Second' })).status).toBe(200);
    expect((await site.call('DELETE', `/items/${COLLECTION}/${id}`)).status).toBe(204);

    expect(seen.map(({ write }) => [write.kind, write.version])).toEqual([
      ['create', 1],
      ['update', 2],
      ['delete', 3],
    ]);
    const [create, update, remove] = seen as [(typeof seen)[number], (typeof seen)[number], (typeof seen)[number]];
    expect(create.write).toMatchObject({ before: null, after: { id, title: 'First' }, collection: { name: COLLECTION }, target: 'main' });
    expect(create.committed).toEqual({ version: 1, title: 'First', deleted: false });
    expect(update.write).toMatchObject({ before: { title: 'First' }, after: { title: 'Second' }, changes: { title: 'Second' } });
    expect(update.write.access?.principal).toMatchObject({ kind: 'user' });
    expect(update.committed).toEqual({ version: 2, title: 'Second', deleted: false });
    expect(remove.write.after.deletedAt).toEqual(expect.any(String));
    expect(remove.committed).toEqual({ version: 3, title: 'Second', deleted: true });
  });

  it('logs an after-commit error and answers the write as committed', async () => {
    const site = await notesSite();
    register({
      name: 'test-failing',
      collections: [COLLECTION],
      async afterCommit(write) {
        if (write.siteId === site.siteId) throw new Error('the reaction failed');
      },
    });
    const created = await site.call('POST', `/items/${COLLECTION}`, { title: 'Kept' });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    expect((await site.call('PATCH', `/items/${COLLECTION}/${id}`, { title: 'Still kept' })).status).toBe(200);
    expect(await stored(site.siteId, id)).toEqual({ version: 2, title: 'Still kept', deleted: false });
  });

  it('finds only the panel cache\'s (after commit) on a collection no area guards; the editorial hook only on gated collections', async () => {
    const site = await notesSite();
    const notes = await service.context.schemas.collection(site.siteId, COLLECTION);
    for (const kind of ['create', 'update', 'revert', 'promote', 'delete', 'purge'] as const) {
      // The insights runtime drops cached panel answers of any collection written (docs/insights.md).
      expect(service.context.itemHooks.applicable(kind, notes).map((hook) => hook.name)).toEqual(['insights-panel-cache']);
    }
    expect((await site.call('PATCH', `/collections/${COLLECTION}`, { editorialWorkflow: true })).status).toBe(200);
    const gated = await service.context.schemas.collection(site.siteId, COLLECTION);
    expect(service.context.itemHooks.applicable('update', gated).map((hook) => hook.name)).toEqual(['editorial', 'insights-panel-cache']);
    expect(service.context.itemHooks.applicable('create', gated).map((hook) => hook.name)).toEqual(['insights-panel-cache']);
  });
});
