// After a field's type change, an item's next write starts from the item as the read models hold it
// (its values converted), not from its last event's snapshot (the old values): the new event carries
// the converted values, so reads, revisions and time travel after it show them, and the log before
// keeps the old ones. Also: a type change waits for the item writes in flight.
import { afterEach, describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { adminCalls } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

/** Whether a transaction waits for the collection's schema lock (its stream's advisory lock). */
async function waitsForSchemaLock(siteId: string, collection: string): Promise<boolean> {
  const { rows } = await owner.query(
    `SELECT 1 FROM pg_locks l, (SELECT hashtextextended($1, 0) AS k) AS key
      WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 1
        AND l.classid::bigint = (key.k >> 32) & 4294967295 AND l.objid::bigint = key.k & 4294967295`,
    [streamId(siteId, 'collection', collection)],
  );
  return rows.length > 0;
}

/** A site with `notes` (title, code: string, flag: string) and one note holding code "12", changed to integer. */
async function noteWithConvertedCode() {
  const site = await createTestSite(service);
  const call = adminCalls(service, site);
  expect(
    (await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'code', type: 'string' }, { field: 'flag', type: 'string' }] }))
      .status,
  ).toBe(201);
  const note = (await call('POST', '/items/notes', { title: 'one', code: '12', flag: 'TRUE' })).body.data;
  const changed = await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  return { site, call, id: note.id as string };
}

/** The item's events as stored: type and the code of their snapshot (and draft). */
async function loggedCodes(siteId: string, id: string) {
  const { rows } = await owner.query<{ type: string; code: unknown; draft: unknown }>(
    `SELECT type, data -> 'snapshot' -> 'code' AS code, data -> 'draft' -> 'code' AS draft
       FROM events WHERE site_id = $1 AND stream_id LIKE $2 ORDER BY position`,
    [siteId, `%/item/notes/${id}`],
  );
  return rows;
}

describe('an item written after its field changed type', () => {
  it('keeps the converted value when another field is patched, in the read model, the new event and time travel', async () => {
    const { site, call, id } = await noteWithConvertedCode();
    const patched = await call('PATCH', `/items/notes/${id}`, { title: 'one, renamed' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ title: 'one, renamed', code: 12 });
    expect((await call('GET', `/items/notes/${id}`)).body.data.code).toBe(12);
    // The log: the create keeps "12", the update carries 12 and says only the title changed.
    expect((await loggedCodes(site.siteId, id)).map((row) => [row.type, row.code])).toEqual([
      ['item.created', '12'],
      ['item.updated', 12],
    ]);
    const { rows } = await owner.query<{ delta: Record<string, unknown> }>(
      `SELECT data -> 'delta' AS delta FROM events WHERE site_id = $1 AND type = 'item.updated'`,
      [site.siteId],
    );
    expect(rows[0]!.delta).toEqual({ title: 'one, renamed' });
    // Time travel now shows the converted value, and filters read it as a number.
    const now = new Date().toISOString();
    expect((await call('GET', `/items/notes/${id}?asOf=${encodeURIComponent(now)}`)).body.data.code).toBe(12);
    expect((await call('GET', '/items/notes?filter[code][_eq]=12')).body.data.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('shows the converted value at time travel from the change on, before any write, and the old value before it', async () => {
    const { site, call, id } = await noteWithConvertedCode();
    const { rows } = await owner.query<{ before: Date; after: Date }>(
      `SELECT recorded_at - interval '1 millisecond' AS before, recorded_at AS after FROM events
        WHERE site_id = $1 AND type = 'field.updated' ORDER BY position DESC LIMIT 1`,
      [site.siteId],
    );
    const at = (moment: Date) => call('GET', `/items/notes/${id}?asOf=${encodeURIComponent(moment.toISOString())}`);
    expect((await at(rows[0]!.before)).body.data.code).toBe('12');
    expect((await at(rows[0]!.after)).body.data.code).toBe(12);
    expect((await at(new Date())).body.data.code).toBe(12);
    const listed = await call('GET', `/items/notes?asOf=${encodeURIComponent(new Date().toISOString())}&filter[code][_eq]=12`);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('converts every field changed since the item was last written, in order, as the read model did', async () => {
    const { call, id } = await noteWithConvertedCode();
    expect((await call('PATCH', '/fields/notes/flag?allowDestructive=true', { type: 'boolean' })).status).toBe(200);
    // Integer to text and back: "12" → 12 → "12" → 12; the item's event still holds the first "12".
    expect((await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'string' })).status).toBe(200);
    expect((await call('GET', `/items/notes/${id}`)).body.data).toMatchObject({ code: '12', flag: true });
    const patched = await call('PATCH', `/items/notes/${id}`, { title: 'two' });
    expect(patched.body.data).toMatchObject({ title: 'two', code: '12', flag: true });
  });

  it('keeps the converted value through a delete, a revert that restores, and a draft write', async () => {
    const { site, call, id } = await noteWithConvertedCode();
    expect((await call('DELETE', `/items/notes/${id}`)).status).toBe(204);
    const [deleted] = (await loggedCodes(site.siteId, id)).slice(-1);
    expect(deleted).toMatchObject({ type: 'item.deleted', code: 12 });
    const revisions = (await call('GET', `/items/notes/${id}/revisions`)).body.data;
    const reverted = await call('POST', `/items/notes/${id}/revert`, { revisionId: revisions[0].revisionId });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.data.code).toBe(12);
    const draft = await service.request('PATCH', `/items/notes/${id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { title: 'draft title' },
      headers: { 'x-svc-draft': 'true' },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const [drafted] = (await loggedCodes(site.siteId, id)).slice(-1);
    expect([drafted!.code, drafted!.draft]).toEqual([12, 12]);
    expect((await call('GET', `/items/notes/${id}`)).body.data.code).toBe(12);
  });

  it('nulls a value that does not convert, and the next write keeps it null', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'code', type: 'string' }] });
    const id = (await call('POST', '/items/notes', { title: 'word', code: 'abc' })).body.data.id;
    expect((await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' })).body.meta).toEqual({ converted: 0, nulled: 1 });
    const patched = await call('PATCH', `/items/notes/${id}`, { title: 'still a word' });
    expect(patched.body.data.code).toBeNull();
    expect((await loggedCodes(site.siteId, id)).map((row) => row.code)).toEqual(['abc', null]);
  });

  it('waits for an item write in flight: the write commits first and the type change converts what it wrote', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'code', type: 'string' }] });
    const id = (await call('POST', '/items/notes', { title: 'one', code: '12' })).body.data.id;
    // A hook holds the write in its transaction: loaded (code "12"), decided, not yet appended.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    removals.push(
      service.context.itemHooks.register({
        name: 'test-hold',
        collections: ['notes'],
        async beforeWrite(write) {
          if (write.siteId !== site.siteId || write.changes.title !== 'slow') return;
          held();
          await released;
        },
      }),
    );
    const write = call('PATCH', `/items/notes/${id}`, { title: 'slow' });
    await holding;
    const change = call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
    // The type change queues on the collection's schema lock (before the fix it ran to its end here).
    let changed = false;
    void change.then(() => (changed = true));
    while (!changed && !(await waitsForSchemaLock(site.siteId, 'notes'))) await new Promise((resolve) => setImmediate(resolve));
    release();
    const [written, typeChanged] = await Promise.all([write, change]);
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(typeChanged.body.meta).toEqual({ converted: 1, nulled: 0 });
    expect((await call('GET', `/items/notes/${id}`)).body.data).toMatchObject({ title: 'slow', code: 12 });
    // In the log the write comes before the change, which a rebuild folds in that order: the same row.
    const { rows } = await owner.query<{ type: string }>(
      `SELECT type FROM events WHERE site_id = $1 AND type IN ('item.updated', 'field.updated') ORDER BY position`,
      [site.siteId],
    );
    expect(rows.map((row) => row.type)).toEqual(['item.updated', 'field.updated']);
  });
});
