// Creates that arrive while their site's transactions are busy share the next one (group commit,
// src/runtime/groupCommit.ts). Each request must still be its own: its actor and request id on its
// events, its own answer, and a refusal that touches no other request.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { itemStreamId } from '../../../src/modules/items/itemStreams.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();
const ownerPid = (await owner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
// Watches the held appends from outside the owner's transaction: within a transaction,
// pg_stat_activity is a snapshot taken at its first read and never changes.
const observer = await connectOwnerClientForFile();

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Holds the streams of these item ids in an open transaction of the owner (an uncommitted first
 * event of each), so creates that give these ids wait at their append until `release`.
 */
async function holdStreams(siteId: string, itemIds: string[]): Promise<{ release(): Promise<void> }> {
  await owner.query('BEGIN');
  for (const itemId of itemIds) {
    await owner.query(
      `INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
       VALUES ($1, $2, 1, $3, 'test.hold', '{}', '{}', 'hold')`,
      [siteId, itemStreamId(siteId, 'articles', itemId), randomUUID()],
    );
  }
  return { release: async () => void (await owner.query('ROLLBACK')) };
}

/**
 * Connections waiting for a row of the owner's transaction: the held appends (pipelined, so not
 * found by query text). Others may wait for its snapshot (a concurrent index build), not its rows.
 */
async function waitingOnOwner(): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE wait_event = 'transactionid' AND pg_blocking_pids(pid) @> ARRAY[$1::int]`,
    [ownerPid],
  );
  return rows[0]!.n;
}

describe('group commit of item creates', () => {
  it('joins creates that wait into one transaction, each with its own actor, request id, collection and answer', async () => {
    const site: AccessSite = withHelpers(service, await createTestSite(service, 'group'));
    await createContentModel(site);
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'create' },
      { collection: 'authors', action: 'create' },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const taken = await createItem(site, 'articles', { title: 'taken' });

    // Both transactions a site may run at once wait on held streams; what arrives next must queue.
    const heldIds = [randomUUID(), randomUUID()];
    const hold = await holdStreams(site.siteId, heldIds);
    const send = (token: string, collection: string, body: Record<string, unknown>, requestId: string) =>
      service.request('POST', `/items/${collection}`, { site: site.siteId, token, body, headers: { 'x-request-id': requestId } });
    const held = heldIds.map((id) => send(site.adminToken, 'articles', { id, title: `held ${id}` }, `held-${id}`));
    await until(async () => (await waitingOnOwner()) === 2, 'the two held appends');

    const queued = Array.from({ length: 6 }, (_, index) => ({
      requestId: `queued-${randomUUID()}`,
      actorId: index % 2 === 0 ? site.adminUserId : member.userId,
      token: index % 2 === 0 ? site.adminToken : member.token,
      // One create of another collection shares the transaction too.
      collection: index === 4 ? 'authors' : 'articles',
      body: index === 3 ? { id: taken.id, title: 'reuses a taken id' } : index === 4 ? { name: 'queued author' } : { title: `queued ${index}` },
    }));
    const answers: Promise<TestResponse>[] = queued.map((entry) => send(entry.token, entry.collection, entry.body, entry.requestId));
    await until(() => service.context.streamStarts.waiting(site.siteId) === queued.length, 'the queued creates');
    await hold.release();

    for (const answer of await Promise.all(held)) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const responses = await Promise.all(answers);
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 409, 201, 201]);
    expect(responses[3]!.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'id'] });

    const created = queued.map((entry, index) => ({ ...entry, itemId: responses[index]!.body.data?.id as string | undefined })).filter((entry) => entry.itemId);
    const { rows } = await owner.query<{ stream_id: string; tx_id: string; metadata: { actor: { id: string }; requestId: string } }>(
      `SELECT stream_id, tx_id::text, metadata FROM events WHERE stream_id = ANY($1::text[])`,
      [created.map((entry) => itemStreamId(site.siteId, entry.collection, entry.itemId!))],
    );
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((row) => row.tx_id)).size).toBe(1);
    for (const entry of created) {
      const row = rows.find((candidate) => candidate.stream_id === itemStreamId(site.siteId, entry.collection, entry.itemId!))!;
      expect(row.metadata.actor.id).toBe(entry.actorId);
      expect(row.metadata.requestId).toBe(entry.requestId);
      const item = await site.admin('GET', `/items/${entry.collection}/${entry.itemId}`);
      expect(item.body.data.userCreated).toBe(entry.actorId);
      const revisions = await site.admin('GET', `/items/${entry.collection}/${entry.itemId}/revisions`);
      expect(revisions.body.data[0]).toMatchObject({ actor: { id: entry.actorId } });
    }
    // The refused request wrote nothing: the taken item is as it was.
    const kept = await site.admin('GET', `/items/articles/${taken.id}`);
    expect(kept.body.data.title).toBe('taken');
  });
});
