// Events are checked against their type's schema where they are read from the store, after
// upcasting: a malformed event is refused loudly, with its position, by every read and by the
// projections; an append of one is refused and stores nothing. Runs in a database of its own: a
// malformed event in the shared log would stop every other test file's async projections.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamId } from '../../domain/shared/events.ts';
import { registerUpcaster } from '../../domain/shared/upcasting.ts';
import {
  appendToStream,
  LOG_START,
  MalformedEventError,
  readAll,
  readCommitted,
  readStream,
  readStreamHead,
  type AppendRequest,
} from '../../infra/eventstore/eventStore.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { identifier, sql } from '../../infra/postgres/sql.ts';
import { defineProjection } from '../../projections/projection.ts';
import { readCheckpoint, rebuildProjection, stepAsyncProjection } from '../../src/runtime/projectionRunner.ts';
import { createFreshDatabase, type FreshDatabase } from '../projections/freshDatabase.ts';

let fresh: FreshDatabase;
let database: Database;

beforeAll(async () => {
  fresh = await createFreshDatabase();
  database = createDatabase({ connectionString: fresh.url, poolSize: 4 });
});
afterAll(async () => {
  await database?.close();
  await fresh?.drop();
});

const metadata = { actor: { kind: 'system' as const, id: 'event-schemas-test' } };

function append(siteId: string, request: Omit<AppendRequest, 'siteId' | 'metadata'>) {
  return database.withSite(siteId, (tx) => appendToStream(tx, { siteId, metadata, ...request }));
}

async function storedRows(stream: string): Promise<number> {
  const [row] = await fresh.owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE stream_id = ${stream}`);
  return row!.n;
}

/**
 * Readers of the global log stop below the oldest transaction still open on the server (other test
 * files' count too): wait until the event at `position` is above that horizon.
 */
async function belowTheHorizon(position: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await fresh.owner.query<{ readable: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM svc_read_all('0'::xid8, 0, 100000000) WHERE position = ${position}) AS readable`,
    );
    if (row!.readable) return;
    if (Date.now() > deadline) throw new Error('a transaction of the server stayed open for 20 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What a reader must throw for the event at `position`. */
function refusedAt(position: number, type: string) {
  return expect.objectContaining({
    name: 'MalformedEventError',
    position,
    type,
    message: expect.stringContaining(`position ${position}`),
  });
}

describe('appending an event', () => {
  it('refuses one whose data its schema does not take, and stores nothing of the append', async () => {
    const siteId = `schemas-${randomUUID().slice(0, 8)}`;
    const stream = streamId(siteId, 'team', '1');
    const appended = append(siteId, {
      streamId: stream,
      expectedVersion: 'no_stream',
      events: [
        { type: 'team.created', data: { teamId: 't1', name: 'Desk', description: null, members: [] } },
        { type: 'team.updated', data: { teamId: 't1', changes: { members: 'everyone' } } },
      ],
    });
    await expect(appended).rejects.toBeInstanceOf(MalformedEventError);
    await expect(appended).rejects.toThrow(/type team\.updated\) does not match its schema: changes\.members: /);
    expect(await storedRows(stream)).toBe(0);
  });

  it('refuses an event type the catalogue does not know', async () => {
    const siteId = `schemas-${randomUUID().slice(0, 8)}`;
    const stream = streamId(siteId, 'probe', '1');
    await expect(append(siteId, { streamId: stream, expectedVersion: 'any', events: [{ type: 'probe.happened', data: {} }] })).rejects.toThrow(
      /"probe\.happened" is not an event type of the catalogue/,
    );
    expect(await storedRows(stream)).toBe(0);
  });
});

describe('reading a malformed stored event', () => {
  it('is refused with its position by every read of the store, by an async projection, and by a rebuild', { timeout: 30_000 }, async () => {
    const siteId = `schemas-${randomUUID().slice(0, 8)}`;
    const stream = streamId(siteId, 'item', 'articles', 'a1');
    // Written around the store (as an old release or a hand-made fix could have): a snapshot without its id.
    const [row] = await fresh.owner.query<{ position: number }>(sql`
      INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
      VALUES (${siteId}, ${stream}, 1, ${randomUUID()}, 'item.created',
              ${JSON.stringify({ collection: 'articles', itemId: 'a1', snapshot: { title: 'No id' }, delta: {} })}::jsonb,
              ${JSON.stringify(metadata)}::jsonb, 'h')
      RETURNING position`);
    const position = row!.position;
    const refused = refusedAt(position, 'item.created');

    await expect(database.withSite(siteId, (tx) => readStream(tx, stream))).rejects.toEqual(refused);
    await expect(database.withSite(siteId, (tx) => readStreamHead(tx, stream))).rejects.toEqual(refused);
    await belowTheHorizon(position);
    await expect(readAll(database, LOG_START, 1_000)).rejects.toEqual(refused);
    await expect(readCommitted(fresh.owner, LOG_START, 1_000)).rejects.toEqual(refused);
    await expect(database.withSite(siteId, (tx) => readStream(tx, stream))).rejects.toThrow(/snapshot\.id: /);

    // An async projection stops before it, loudly, instead of skipping it.
    const applied: number[] = [];
    const audit = defineProjection({
      name: `malformed_${siteId}`,
      mode: 'async',
      eventTypes: '*',
      tables: [],
      async apply(_tx, event) {
        applied.push(event.position);
      },
    });
    await expect(stepAsyncProjection(database, audit)).rejects.toEqual(refused);
    expect(applied).toEqual([]);
    expect((await readCheckpoint(database, audit.name)).position).toBeLessThan(position);

    // So does the rebuild of an inline one (which empties its table first, and keeps it as it was).
    const table = `rebuilt_${siteId.replace('-', '_')}`;
    await fresh.owner.query(sql`CREATE TABLE ${identifier(table)} (position bigint)`);
    await fresh.owner.query(sql`INSERT INTO ${identifier(table)} VALUES (0)`);
    const items = defineProjection({
      name: `inline_${siteId}`,
      mode: 'inline',
      tables: [table],
      handlers: {
        'item.created': async (tx, event) => {
          await tx.query(sql`INSERT INTO ${identifier(table)} VALUES (${event.position})`);
        },
      },
    });
    await expect(rebuildProjection(fresh.owner, items)).rejects.toEqual(refused);
    expect(await fresh.owner.query(sql`SELECT position FROM ${identifier(table)}`)).toEqual([{ position: 0 }]);
  });
});

describe('upcasting', () => {
  it('lifts an event stored at an older version through every step, checks the result against the schema, and never rewrites the log', async () => {
    // team.created, version 1: the name was `title`; version 2: no description or members yet.
    registerUpcaster('team.created', 1, ({ title, ...data }) => (title === undefined ? data : { ...data, name: title }));
    registerUpcaster('team.created', 2, (data) => ({ description: null, members: [], ...data }));
    const siteId = `schemas-${randomUUID().slice(0, 8)}`;
    const stream = streamId(siteId, 'team', 't1');
    await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [{ type: 'team.created', schemaVersion: 1, data: { teamId: 't1', title: 'Desk' } }] });

    const [lifted] = await database.withSite(siteId, (tx) => readStream(tx, stream));
    expect(lifted).toMatchObject({ type: 'team.created', schemaVersion: 3, data: { teamId: 't1', name: 'Desk', description: null, members: [] } });
    const [raw] = await fresh.owner.query<{ schema_version: number; data: unknown }>(sql`SELECT schema_version, data FROM events WHERE stream_id = ${stream}`);
    expect(raw).toEqual({ schema_version: 1, data: { teamId: 't1', title: 'Desk' } });

    // Lifted data is checked like any other: a version-1 event with no title has no name.
    const other = streamId(siteId, 'team', 't2');
    await expect(
      append(siteId, { streamId: other, expectedVersion: 'no_stream', events: [{ type: 'team.created', schemaVersion: 1, data: { teamId: 't2' } }] }),
    ).rejects.toThrow(/type team\.created\) does not match its schema: name: /);
    expect(await storedRows(other)).toBe(0);
  });
});
