// The async projection daemon across instances: one leader per projection (advisory lock), failover
// when it stops, exactly-once application even when steps race, rebuilds that do not deadlock with
// it, and lag per projection. Runs in a database of its own so that counts of the log are exact.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamId } from '../../domain/shared/events.ts';
import { appendToStream, readLogHead } from '../../infra/eventstore/eventStore.ts';
import { createLogNotifier } from '../../infra/eventstore/logNotifier.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { identifier, sql } from '../../infra/postgres/sql.ts';
import { defineProjection, type Projection } from '../../projections/projection.ts';
import { createContext } from '../../src/boot/boot.ts';
import { createProjectionDaemon } from '../../src/runtime/projectionDaemon.ts';
import { projectionStatus, readCheckpoint, rebuildProjection, stepAsyncProjection } from '../../src/runtime/projectionRunner.ts';
import { testConfig } from '../support/testService.ts';
import { createFreshDatabase, type FreshDatabase } from './freshDatabase.ts';

let fresh: FreshDatabase;
let writer: Database;

beforeAll(async () => {
  fresh = await createFreshDatabase();
  writer = createDatabase({ connectionString: fresh.url, poolSize: 8 });
});
afterAll(async () => {
  await writer?.close();
  await fresh?.drop();
});

/** A table recording every application of a probe projection: no key, so a double apply shows. */
async function probeTable(): Promise<string> {
  const table = `probe_${randomBytes(4).toString('hex')}`;
  await fresh.owner.query(sql`CREATE TABLE ${identifier(table)} (event_id uuid NOT NULL, instance text NOT NULL, position bigint NOT NULL)`);
  await fresh.owner.query(sql`GRANT SELECT, INSERT ON ${identifier(table)} TO svc_app`);
  return table;
}

function probe(name: string, table: string, instance: string): Projection {
  return defineProjection({
    name,
    mode: 'async',
    eventTypes: '*',
    tables: [table],
    async apply(tx, event) {
      await tx.query(sql`INSERT INTO ${identifier(table)} (event_id, instance, position) VALUES (${event.eventId}, ${instance}, ${event.position})`);
    },
  });
}

/**
 * An event of the log that only these tests' projections look at (the service's inline read models
 * are not applied by a bare append, and its async ones only audit it), named by `key`.
 */
function probeEvent(key: string) {
  return { type: 'subscriber_access.granted' as const, data: { collection: `probe-${key}` } };
}

/** Appends `transactions` × `perTransaction` events over two sites, concurrently: event `index` of append `n` is probe `n-index`. */
async function appendEvents(transactions: number, perTransaction: number): Promise<void> {
  const sites = [`d-${randomBytes(3).toString('hex')}`, `d-${randomBytes(3).toString('hex')}`];
  await Promise.all(
    Array.from({ length: transactions }, (_, n) => {
      const siteId = sites[n % 2]!;
      return writer.withSite(siteId, (tx) =>
        appendToStream(tx, {
          siteId,
          streamId: streamId(siteId, 'probe', String(n)),
          expectedVersion: 'no_stream',
          events: Array.from({ length: perTransaction }, (_, index) => probeEvent(`${n}-${index}`)),
          metadata: { actor: { kind: 'system', id: 'daemon-test' } },
        }),
      );
    }),
  );
}

async function startInstance(...projections: Projection[]) {
  return startInstanceWith({}, ...projections);
}

async function startInstanceWith(options: { roundMs?: number; lanes?: number }, ...projections: Projection[]) {
  const database = createDatabase({ connectionString: fresh.url, poolSize: 4 });
  const notifier = await createLogNotifier(() => database.connect());
  const daemon = createProjectionDaemon({ database, notifier, projections, pollMs: 200, logger: pino({ level: 'silent' }), ...options });
  await daemon.start();
  return {
    daemon,
    database,
    async stop() {
      await daemon.stop();
      await notifier.close();
      await database.close();
    },
  };
}

/** Applications per event id of the whole log: an event applied twice or never fails the comparison. */
async function applications(table: string): Promise<{ perEvent: Map<string, number>; instances: Map<string, string[]>; logSize: number }> {
  const rows = await fresh.owner.query<{ event_id: string; times: number; instances: string[] }>(sql`
    SELECT e.event_id, count(p.event_id)::int AS times, coalesce(array_agg(p.instance) FILTER (WHERE p.instance IS NOT NULL), '{}') AS instances
      FROM events e LEFT JOIN ${identifier(table)} p ON p.event_id = e.event_id
     GROUP BY e.event_id`);
  return {
    perEvent: new Map(rows.map((row) => [row.event_id, row.times])),
    instances: new Map(rows.map((row) => [row.event_id, row.instances])),
    logSize: rows.length,
  };
}

/**
 * Readers of the log stop below the oldest transaction still open on the whole server (other test
 * files' transactions count too): wait until every event of this database is below it, then return
 * how many there are. Nothing appends meanwhile, so it stays so.
 */
async function everyEventBelowTheHorizon(): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [counts] = await fresh.owner.query<{ total: number; readable: number }>(sql`
      SELECT (SELECT count(*)::int FROM events) AS total,
             (SELECT count(*)::int FROM svc_read_all('0'::xid8, 0, 100000000)) AS readable`);
    if (counts!.total === counts!.readable) return counts!.total;
    if (Date.now() > deadline) throw new Error('a transaction of the server stayed open for 20 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function expectEachOnce(perEvent: Map<string, number>): void {
  const wrong = [...perEvent].filter(([, times]) => times !== 1);
  expect(wrong, 'events applied other than exactly once').toEqual([]);
}

describe('the projection daemon', () => {
  it('lets one of two running instances apply each event, and the other take over when it stops', { timeout: 60_000 }, async () => {
    const table = await probeTable();
    const name = `leadership_${table}`;
    const first = await startInstance(probe(name, table, 'first'));
    const second = await startInstance(probe(name, table, 'second'));
    const instances = { first, second };
    try {
      await appendEvents(20, 3);
      await Promise.all([first.daemon.drain(), second.daemon.drain()]);
      const before = await applications(table);
      expectEachOnce(before.perEvent);
      const leaders = new Set([...before.instances.values()].flat());
      expect(leaders.size, 'a single instance applied everything').toBe(1);
      const leader = [...leaders][0] as keyof typeof instances;
      const survivor = leader === 'first' ? 'second' : 'first';

      await instances[leader].stop();
      await appendEvents(10, 3);
      await instances[survivor].daemon.drain();
      const after = await applications(table);
      expectEachOnce(after.perEvent);
      const newEvents = [...after.instances].filter(([eventId]) => !before.perEvent.has(eventId));
      expect(newEvents.length).toBe(30);
      expect(new Set(newEvents.flatMap(([, applied]) => applied))).toEqual(new Set([survivor]));
    } finally {
      await Promise.allSettled([first.stop(), second.stop()]);
    }
  });

  it('applies each event once even when two runners step the same projection at the same time', { timeout: 60_000 }, async () => {
    const table = await probeTable();
    const name = `race_${table}`;
    await appendEvents(40, 30);
    const runners = [createDatabase({ connectionString: fresh.url, poolSize: 2 }), createDatabase({ connectionString: fresh.url, poolSize: 2 })];
    try {
      const [{ n: logSize }] = (await fresh.owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events`)) as [{ n: number }];
      await Promise.all(
        runners.map(async (database, index) => {
          const projection = probe(name, table, `runner-${index}`);
          for (;;) {
            const stepped = await stepAsyncProjection(database, projection);
            const [{ applied }] = (await fresh.owner.query<{ applied: number }>(sql`SELECT count(*)::int AS applied FROM ${identifier(table)}`)) as [
              { applied: number },
            ];
            if (applied >= logSize) return;
            // Nothing new below the horizon yet (a transaction elsewhere on the server is open): wait a moment.
            if (stepped === 0) await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }),
      );
      expectEachOnce((await applications(table)).perEvent);
    } finally {
      await Promise.all(runners.map((database) => database.close()));
    }
  });

  it('rebuilds an async projection while its daemon runs, without deadlock or double application', { timeout: 60_000 }, async () => {
    const table = await probeTable();
    const projection = probe(`rebuild_${table}`, table, 'daemon');
    const instance = await startInstance(projection);
    try {
      await appendEvents(30, 20);
      await Promise.all([appendEvents(30, 20), rebuildProjection(fresh.owner, projection), instance.daemon.drain()]);
      await appendEvents(5, 2);
      await instance.daemon.drain();
      expectEachOnce((await applications(table)).perEvent);
    } finally {
      await instance.stop();
    }
  });

  it('applies a batch to projections at one checkpoint together, and keeps the others going when one fails on an event', { timeout: 60_000 }, async () => {
    const [tableA, tableB] = [await probeTable(), await probeTable()];
    const failing = defineProjection({
      name: `failing_${tableA}`,
      mode: 'async',
      eventTypes: '*',
      tables: [],
      async apply(_tx, event) {
        if (event.type === 'subscriber_access.granted' && event.data.collection === 'probe-7-1') throw new Error('cannot apply this event');
      },
    });
    const instance = await startInstance(probe(`joint_a_${tableA}`, tableA, 'one'), failing, probe(`joint_b_${tableB}`, tableB, 'one'));
    try {
      await appendEvents(40, 3);
      const logSize = await everyEventBelowTheHorizon();
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [a, b] = [await applications(tableA), await applications(tableB)];
        const applied = (perEvent: Map<string, number>) => [...perEvent.values()].filter((times) => times > 0).length;
        if (applied(a.perEvent) === logSize && applied(b.perEvent) === logSize) {
          expectEachOnce(a.perEvent);
          expectEachOnce(b.perEvent);
          break;
        }
        if (Date.now() > deadline) throw new Error('the healthy projections did not apply the whole log');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [bad] = await fresh.owner.query<{ position: number }>(
        sql`SELECT position FROM events WHERE data->>'collection' = 'probe-7-1'`,
      );
      const checkpoint = await readCheckpoint(fresh.owner, failing.name);
      expect(checkpoint.position).toBeLessThan(bad!.position);
    } finally {
      await instance.stop();
    }
  });

  it('steps lanes of projections in concurrent transactions, each lane together, balanced by cost', { timeout: 60_000 }, async () => {
    const table = `lanes_${randomBytes(4).toString('hex')}`;
    await fresh.owner.query(sql`CREATE TABLE ${identifier(table)} (projection text NOT NULL, event_id uuid NOT NULL, tx xid8 NOT NULL)`);
    await fresh.owner.query(sql`GRANT SELECT, INSERT ON ${identifier(table)} TO svc_app`);
    const recording = (name: string, cost: number) =>
      defineProjection({
        name: `${name}_${table}`,
        mode: 'async',
        cost,
        eventTypes: '*',
        tables: [table],
        async apply(tx, event) {
          await tx.query(sql`INSERT INTO ${identifier(table)} (projection, event_id, tx) VALUES (${name}, ${event.eventId}, pg_current_xact_id())`);
        },
      });
    let armed = false;
    const failing = defineProjection({
      name: `failing_${table}`,
      mode: 'async',
      eventTypes: '*',
      tables: [],
      async apply(_tx, event) {
        if (armed && event.type === 'subscriber_access.granted' && event.data.collection === 'probe-3-0') throw new Error('cannot apply this event');
      },
    });
    const appliedAll = async () => {
      const logSize = await everyEventBelowTheHorizon();
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await fresh.owner.query<{ applied: number }>(sql`SELECT count(*)::int AS applied FROM ${identifier(table)}`);
        if (row!.applied >= 3 * logSize) return logSize;
        if (Date.now() > deadline) throw new Error('the lanes did not apply the whole log');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // Two lanes: the costly projection alone, the three others (cost 1 each) together.
    const instance = await startInstanceWith({ lanes: 2 }, recording('light_a', 1), recording('heavy', 3), failing, recording('light_b', 1));
    try {
      // First the light lane runs together; then one of its projections fails on an event of the second round.
      await appendEvents(6, 4);
      await appliedAll();
      armed = true;
      await appendEvents(12, 4);
      const logSize = await appliedAll();
      const perEvent = await fresh.owner.query<{ projections: string[]; heavy: string; light_a: string; light_b: string }>(sql`
        SELECT array_agg(projection ORDER BY projection) AS projections,
               max(tx::text) FILTER (WHERE projection = 'heavy') AS heavy,
               max(tx::text) FILTER (WHERE projection = 'light_a') AS light_a,
               max(tx::text) FILTER (WHERE projection = 'light_b') AS light_b
          FROM ${identifier(table)} GROUP BY event_id`);
      expect(perEvent).toHaveLength(logSize);
      for (const event of perEvent) {
        expect(event.projections).toEqual(['heavy', 'light_a', 'light_b']);
        expect(event.heavy).not.toBe(event.light_a);
      }
      // The light lane ran together in the first round, and each alone once one of them failed.
      expect(perEvent.some((event) => event.light_a === event.light_b)).toBe(true);
      expect(perEvent.some((event) => event.light_a !== event.light_b)).toBe(true);
      const [bad] = await fresh.owner.query<{ position: number }>(
        sql`SELECT max(position) AS position FROM events WHERE data->>'collection' = 'probe-3-0'`,
      );
      expect((await readCheckpoint(fresh.owner, failing.name)).position).toBeLessThan(bad!.position);
    } finally {
      await instance.stop();
    }
  });

  it('spaces its rounds by roundMs while commits keep coming, and stops at once while it waits', { timeout: 60_000 }, async () => {
    const table = await probeTable();
    await fresh.owner.query(sql`ALTER TABLE ${identifier(table)} ADD COLUMN applied_at timestamptz NOT NULL DEFAULT clock_timestamp()`);
    const name = `rounds_${table}`;
    const appliedAt = async (probe: string) => {
      const rows = await fresh.owner.query<{ at: Date }>(sql`SELECT max(applied_at) AS at FROM ${identifier(table)} WHERE instance = ${probe}`);
      return rows[0]?.at ?? null;
    };
    const waitForApplied = async (probe: string) => {
      const deadline = Date.now() + 20_000;
      for (let at = await appliedAt(probe); ; at = await appliedAt(probe)) {
        if (at) return at;
        if (Date.now() > deadline) throw new Error(`${probe} was not applied`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // Records each of its probes (a type the other tests do not append, so that its first round
    // has nothing else to apply) under its key, with the time it was applied.
    const recorder = defineProjection({
      name,
      mode: 'async',
      tables: [table],
      handlers: {
        'subscriber_access.revoked': async (tx, event) => {
          await tx.query(sql`INSERT INTO ${identifier(table)} (event_id, instance, position) VALUES (${event.eventId}, ${event.data.collection}, ${event.position})`);
        },
      },
    });
    const instance = await startInstanceWith({ roundMs: 1_000 }, recorder);
    const append = (key: string) =>
      writer.withSite('rounds', (tx) =>
        appendToStream(tx, {
          siteId: 'rounds',
          streamId: streamId('rounds', 'probe', `${key}-${table}`),
          expectedVersion: 'no_stream',
          events: [{ type: 'subscriber_access.revoked', data: { collection: `probe-${key}` } }],
          metadata: { actor: { kind: 'system', id: 'daemon-test' } },
        }),
      );
    try {
      await append('first');
      const first = await waitForApplied('probe-first');
      await append('second');
      const second = await waitForApplied('probe-second');
      // The round that applied the first event began before it; the next may not begin within 1 s of that.
      expect(second.getTime() - first.getTime()).toBeGreaterThanOrEqual(500);
      await append('third');
    } finally {
      const stopping = Date.now();
      await instance.stop();
      expect(Date.now() - stopping).toBeLessThan(900);
    }
  });

  it('reports the lag of every async projection and none for inline ones', async () => {
    const table = await probeTable();
    const projection = probe(`lag_${table}`, table, 'status');
    const inline = defineProjection({ name: `inline_${table}`, mode: 'inline', eventTypes: '*', tables: [table], apply: async () => undefined });
    await appendEvents(4, 5);
    const logSize = await everyEventBelowTheHorizon();
    const { position: head } = await readLogHead(writer);

    const behind = await projectionStatus(writer, [inline, projection]);
    expect(behind).toEqual([
      { name: inline.name, mode: 'inline', checkpoint: null, head, lag: 0 },
      { name: projection.name, mode: 'async', checkpoint: 0, head, lag: logSize },
    ]);

    while ((await stepAsyncProjection(writer, projection)) > 0) {
      // until the projection reaches the head of the log
    }
    const caughtUp = await projectionStatus(writer, [projection]);
    expect(caughtUp).toEqual([{ name: projection.name, mode: 'async', checkpoint: head, head, lag: 0 }]);
    expect((await readCheckpoint(writer, projection.name)).position).toBe(head);
  });

  it('gives each event one audit entry when two services run on one database', { timeout: 60_000 }, async () => {
    const contexts = [await createContext(testConfig({ DATABASE_URL: fresh.url })), await createContext(testConfig({ DATABASE_URL: fresh.url }))];
    try {
      await appendEvents(20, 4);
      await Promise.all(contexts.map((context) => context.daemon.drain()));
      const rows = await fresh.owner.query<{ event_id: string; entries: number }>(sql`
        SELECT e.event_id, count(a.event_id)::int AS entries FROM events e LEFT JOIN audit_log a ON a.event_id = e.event_id GROUP BY e.event_id`);
      expect(rows.length).toBeGreaterThan(80);
      expect(rows.filter((row) => row.entries !== 1)).toEqual([]);
    } finally {
      await Promise.all(contexts.map((context) => context.close()));
    }
  });
});
