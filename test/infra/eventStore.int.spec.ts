import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { streamId, type StoredEvent } from '../../domain/shared/events.ts';
import {
  appendFirstEvents,
  appendToStream,
  cursorOf,
  readAll,
  readLogHead,
  readStream,
  StreamConflictError,
  type AppendRequest,
  type GlobalCursor,
} from '../../infra/eventstore/eventStore.ts';
import { createLogNotifier, type LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { uniqueSiteId } from '../support/testService.ts';

let database: Database;
let owner: Database;
let notifier: LogNotifier;

beforeAll(async () => {
  database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 12 });
  owner = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2, asApplicationRole: false });
  notifier = await createLogNotifier(() => database.connect());
});
afterAll(async () => {
  await notifier.close();
  await database.close();
  await owner.close();
});

const metadata = { actor: { kind: 'system' as const, id: 'event-store-test' } };

/**
 * A small valid event named by `key`. Other test files' services share this database and read the
 * whole log (the audit log), so every event appended here must be one the catalogue knows.
 */
function probe(key: string) {
  return { type: 'subscriber_access.granted' as const, data: { collection: key } };
}

function append(siteId: string, request: Omit<AppendRequest, 'siteId' | 'metadata'>) {
  return database.withSite(siteId, (tx) => appendToStream(tx, { siteId, metadata, ...request }));
}

function isAfter(a: GlobalCursor, b: GlobalCursor): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta > tb || (ta === tb && a.position > b.position);
}

describe('appending to one stream', () => {
  it('lets exactly one of eight concurrent appends with the same expected version win; the others get 409 CONFLICT', async () => {
    const siteId = uniqueSiteId('es');
    const stream = streamId(siteId, 'item', 'contended');
    await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [probe('created')] });

    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, writer) =>
        append(siteId, { streamId: stream, expectedVersion: 1, events: [probe(`updated by ${writer}`)] }),
      ),
    );

    const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const losers = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(7);
    for (const loser of losers) {
      expect(loser.reason).toBeInstanceOf(StreamConflictError);
      expect(loser.reason).toMatchObject({ code: 'CONFLICT', status: 409 });
    }
    const stored = await database.withSite(siteId, (tx) => readStream(tx, stream));
    expect(stored.map((event) => event.streamPosition)).toEqual([1, 2]);
    expect(stored[1]!.prevHash).toBe(stored[0]!.hash);
  });

  it('refuses an append whose expected version is behind, and one that expects a new stream', async () => {
    const siteId = uniqueSiteId('es');
    const stream = streamId(siteId, 'item', 'versioned');
    await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [probe('a'), probe('b')] });
    await expect(append(siteId, { streamId: stream, expectedVersion: 1, events: [probe('c')] })).rejects.toBeInstanceOf(StreamConflictError);
    await expect(append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [probe('c')] })).rejects.toBeInstanceOf(
      StreamConflictError,
    );
    const result = await append(siteId, { streamId: stream, expectedVersion: 2, events: [probe('c')] });
    expect(result.nextVersion).toBe(3);
  });

  it('treats re-appending the same event id as a no-op', async () => {
    const siteId = uniqueSiteId('es');
    const stream = streamId(siteId, 'item', 'idempotent');
    const eventId = randomUUID();
    const first = await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [{ eventId, ...probe('created') }] });
    expect(first.events).toHaveLength(1);

    const again = await append(siteId, { streamId: stream, expectedVersion: 'any', events: [{ eventId, ...probe('created') }] });
    expect(again).toEqual({ nextVersion: 1, events: [] });
    // Even with the expected version of the first attempt: a retried request is not a conflict.
    const retried = await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [{ eventId, ...probe('created') }] });
    expect(retried.events).toEqual([]);

    const stored = await database.withSite(siteId, (tx) => readStream(tx, stream));
    expect(stored.map((event) => event.eventId)).toEqual([eventId]);
  });

  it('refuses a batch that repeats only some already appended event ids, and appends none of it', async () => {
    const siteId = uniqueSiteId('es');
    const stream = streamId(siteId, 'item', 'partial');
    const eventId = randomUUID();
    await append(siteId, { streamId: stream, expectedVersion: 'no_stream', events: [{ eventId, ...probe('a') }] });
    const fresh = randomUUID();
    await expect(
      append(siteId, { streamId: stream, expectedVersion: 'any', events: [{ eventId, ...probe('a') }, { eventId: fresh, ...probe('b') }] }),
    ).rejects.toBeInstanceOf(StreamConflictError);
    const stored = await database.withSite(siteId, (tx) => readStream(tx, stream));
    expect(stored.map((event) => event.eventId)).toEqual([eventId]);
  });

  it('appends only to the site its transaction is set to, and never to a stream or event id of another site', async () => {
    const [siteA, siteB] = [uniqueSiteId('es'), uniqueSiteId('es')];
    const stream = streamId(siteA, 'item', 'owned');
    const eventId = randomUUID();
    await append(siteA, { streamId: stream, expectedVersion: 'no_stream', events: [{ eventId, ...probe('a') }] });

    // The transaction is set to B but names A: refused before anything is written.
    await expect(
      database.withSite(siteB, (tx) =>
        appendToStream(tx, { siteId: siteA, streamId: stream, expectedVersion: 'any', events: [probe('b')], metadata }),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    // B appending to A's stream under its own name, or replaying A's event id: refused too.
    await expect(append(siteB, { streamId: stream, expectedVersion: 'any', events: [probe('b')] })).rejects.toMatchObject({ code: '42501' });
    await expect(
      append(siteB, { streamId: streamId(siteB, 'item', 'x'), expectedVersion: 'any', events: [{ eventId, ...probe('a') }] }),
    ).rejects.toBeInstanceOf(StreamConflictError);

    expect(await database.withSite(siteB, (tx) => readStream(tx, stream))).toEqual([]);
    const stored = await database.withSite(siteA, (tx) => readStream(tx, stream));
    expect(stored.map((event) => event.eventId)).toEqual([eventId]);
  });

  it('starts new streams in bulk only for the site its transaction is set to', async () => {
    const [siteA, siteB] = [uniqueSiteId('es'), uniqueSiteId('es')];
    const bulk = (site: string, named: string) =>
      database.withSite(site, (tx) =>
        appendFirstEvents(tx, { siteId: named, metadata, events: [{ streamId: streamId(named, 'item', 'bulk-1'), event: probe('a') }] }),
      );
    await expect(bulk(siteB, siteA)).rejects.toMatchObject({ code: '42501' });
    expect(await database.withSite(siteA, (tx) => readStream(tx, streamId(siteA, 'item', 'bulk-1')))).toEqual([]);
    expect(await bulk(siteA, siteA)).toHaveLength(1);
  });

  it('runs every function that writes or reads a stream as the log owner, scoped to the transaction’s site, without a NOTIFY inside', async () => {
    // A NOTIFY inside an append holds PostgreSQL's database-wide notify lock through the commit and
    // serializes every writer; the application notifies after commit instead.
    const functions = await owner.query<{ name: string; definer: boolean; notifies: boolean; checks_site: boolean }>(sql`
      SELECT proname AS name, prosecdef AS definer, prosrc LIKE '%pg_notify%' AS notifies, (prosrc LIKE '%svc_require_site%' OR prosrc LIKE '%site_id = current_setting(''svc.site_id'', true)%') AS checks_site
        FROM pg_proc
       WHERE proname IN ('svc_append', 'svc_append_first_events', 'svc_read_stream', 'svc_read_stream_head', 'svc_started_streams')
       ORDER BY proname`);
    expect(functions.map((fn) => fn.name)).toEqual(['svc_append', 'svc_append_first_events', 'svc_read_stream', 'svc_read_stream_head', 'svc_started_streams']);
    for (const fn of functions) expect(fn, fn.name).toMatchObject({ definer: true, notifies: false, checks_site: true });
  });

  it('returns the events as stored: positions, transaction, time and a hash chain linking each to the one before', async () => {
    const siteId = uniqueSiteId('es');
    const stream = streamId(siteId, 'item', 'chain');
    const result = await append(siteId, {
      streamId: stream,
      expectedVersion: 'no_stream',
      events: [1, 2, 3].map((n) => probe(`é ${n}`)),
    });
    const stored = await database.withSite(siteId, (tx) => readStream(tx, stream));
    expect(result.nextVersion).toBe(3);
    expect(result.events).toEqual(stored);
    expect(stored[0]!.prevHash).toBeNull();
    expect(stored[1]!.prevHash).toBe(stored[0]!.hash);
    expect(stored[2]!.prevHash).toBe(stored[1]!.hash);
    expect(new Set(stored.map((event) => event.txId)).size).toBe(1);
  });
});

describe('reading the global log', () => {
  it('gives a reader tailing the log every event of 8 concurrent writers exactly once, in order, with no gaps', async () => {
    const siteId = uniqueSiteId('es');
    const start = await readLogHead(database);
    const writers = 8;
    const appendsPerWriter = 25;
    const expected = new Set<string>();
    let writing = true;
    const seen: StoredEvent[] = [];

    const reader = (async () => {
      let cursor = start;
      const deadline = Date.now() + 25_000;
      while (Date.now() < deadline) {
        const batch = await readAll(database, cursor, 50);
        for (const event of batch) {
          expect(isAfter(cursorOf(event), cursor), 'the log moves forward only').toBe(true);
          cursor = cursorOf(event);
          if (event.siteId === siteId) seen.push(event);
        }
        if (!writing && batch.length === 0 && seen.length >= expected.size) return;
        if (batch.length === 0) await notifier.next('svc_events', 50);
      }
      throw new Error(`reader timed out with ${seen.length} of ${expected.size} events`);
    })();

    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let n = 0; n < appendsPerWriter; n += 1) {
          const size = n % 5 === 0 ? 3 : 1;
          const result = await append(siteId, {
            streamId: streamId(siteId, 'writer', String(writer)),
            expectedVersion: 'any',
            events: Array.from({ length: size }, (_, index) => probe(`${writer}/${n}/${index}`)),
          });
          for (const event of result.events) expected.add(event.eventId);
        }
      }),
    );
    writing = false;
    await reader;

    const ids = seen.map((event) => event.eventId);
    expect(new Set(ids).size, 'no event twice').toBe(ids.length);
    expect(new Set(ids), 'no event missing').toEqual(expected);
    for (let writer = 0; writer < writers; writer += 1) {
      const positions = seen.filter((event) => event.streamId === streamId(siteId, 'writer', String(writer))).map((event) => event.streamPosition);
      expect(positions, `stream ${writer} in order`).toEqual(positions.map((_, index) => index + 1));
    }
  });

  it('does not pass a transaction that is still open, so a late commit with a lower position is not skipped', async () => {
    const siteId = uniqueSiteId('es');
    const start = await readLogHead(database);
    let releaseSlow!: () => void;
    const slowMayCommit = new Promise<void>((resolve) => (releaseSlow = resolve));
    let slowAppended!: () => void;
    const slowHasAppended = new Promise<void>((resolve) => (slowAppended = resolve));

    // The slow writer appends first (lower transaction id and position) and commits last.
    const slow = database.withSite(siteId, async (tx) => {
      const result = await appendToStream(tx, { siteId, streamId: streamId(siteId, 'slow', '1'), expectedVersion: 'any', events: [probe('slow')], metadata });
      slowAppended();
      await slowMayCommit;
      return result.events[0]!;
    });
    await slowHasAppended;
    const fast = (await append(siteId, { streamId: streamId(siteId, 'fast', '1'), expectedVersion: 'any', events: [probe('fast')] })).events[0]!;
    expect(fast.position).toBeGreaterThan(0);

    // The fast event is committed, but a reader must not see it while the slow one may still commit before it.
    const whileOpen = await readAll(database, start, 100_000);
    expect(whileOpen.some((event) => event.eventId === fast.eventId)).toBe(false);

    releaseSlow();
    const slowEvent = await slow;
    expect(slowEvent.position).toBeLessThan(fast.position);
    let cursor = start;
    const mine: string[] = [];
    const deadline = Date.now() + 20_000;
    while (mine.length < 2 && Date.now() < deadline) {
      const batch = await readAll(database, cursor, 1000);
      for (const event of batch) {
        cursor = cursorOf(event);
        if (event.siteId === siteId && event.type === 'subscriber_access.granted') mine.push(event.data.collection);
      }
      if (batch.length === 0) await notifier.next('svc_events', 50);
    }
    expect(mine).toEqual(['slow', 'fast']);
  });
});
