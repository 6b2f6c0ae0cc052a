import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { identifier, prepared, raw, sql } from '../../infra/postgres/sql.ts';
import { statementName } from '../../infra/postgres/statementCache.ts';

let database: Database;
let owner: Database;

beforeAll(() => {
  database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 4 });
  owner = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2, asApplicationRole: false });
});
afterAll(async () => {
  await database.close();
  await owner.close();
});

/** Resolves with every payload received on `channel` up to and including `payload`. */
function receivedUntil(listener: pg.PoolClient, channel: string, payload: string): Promise<string[]> {
  const received: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${payload} notification; got ${received.join(', ')}`)), 10_000);
    listener.on('notification', (message) => {
      if (message.channel !== channel) return;
      received.push(message.payload ?? '');
      if (message.payload === payload) {
        clearTimeout(timer);
        resolve(received);
      }
    });
  });
}

describe('transactions', () => {
  it('notify once per payload after commit, and never for a transaction that rolled back', async () => {
    const channel = `svc_test_${process.pid}_${Date.now()}`;
    const listener = await database.connect();
    await listener.query(`LISTEN ${channel}`);
    try {
      const received = receivedUntil(listener, channel, 'marker');
      await expect(
        database.withSystem(async (tx) => {
          tx.notifyAfterCommit(channel, 'rolled-back');
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await database.withSystem(async (tx) => {
        tx.notifyAfterCommit(channel, 'committed');
        tx.notifyAfterCommit(channel, 'committed');
      });
      // Notifications go out in the order their transactions committed: after this one, nothing else
      // of the two transactions can arrive.
      await database.withSystem(async (tx) => tx.notifyAfterCommit(channel, 'marker'));
      expect(await received).toEqual(['committed', 'marker']);
    } finally {
      await listener.query(`UNLISTEN ${channel}`);
      listener.release();
    }
  });

  it('roll back every statement of a failed transaction', async () => {
    const table = identifier(`rollback_probe_${process.pid}_${Date.now()}`);
    await owner.query(sql`CREATE TABLE ${table} (n int)`);
    try {
      await expect(
        owner.withSystem(async (tx) => {
          await tx.query(sql`INSERT INTO ${table} VALUES (1)`);
          await tx.query(sql`SELECT 1 / 0`);
        }),
      ).rejects.toThrow(/division by zero/);
      expect(await owner.query(sql`SELECT * FROM ${table}`)).toEqual([]);
    } finally {
      await owner.query(sql`DROP TABLE IF EXISTS ${table}`);
    }
  });
});

describe('site scoping in one round trip', () => {
  const setting = sql`SELECT current_setting('svc.site_id', true) AS site, pg_current_xact_id()::text AS transaction`;

  it('sets the site for the first statement of a transaction and keeps it for the rest', async () => {
    const rows = await database.withSite('site-a', async (tx) => [...(await tx.query(setting)), ...(await tx.query(setting))]);
    expect(rows.map((row) => row.site)).toEqual(['site-a', 'site-a']);
    expect(rows[1]!.transaction).toBe(rows[0]!.transaction);
  });

  it('count a site\'s statements apart from the system\'s, which background work sends', async () => {
    const before = { ...database.stats };
    await database.query(setting);
    await database.withSystem((tx) => tx.query(setting));
    await database.withSite('site-a', (tx) => tx.query(setting));
    await database.withSiteReads('site-b', async (tx) => [await tx.query(setting), await tx.query(setting)]);
    expect(database.stats.queries - before.queries).toBe(5);
    expect(database.stats.siteQueries - before.siteQueries).toBe(3);
  });

  it('runs each read of withSiteReads in its own transaction set to the site, and leaves the connection unset', async () => {
    const rows = await database.withSiteReads('site-b', async (tx) => [...(await tx.query(setting)), ...(await tx.query(setting))]);
    expect(rows.map((row) => row.site)).toEqual(['site-b', 'site-b']);
    expect(rows[1]!.transaction).not.toBe(rows[0]!.transaction);
    // Every pooled connection is back to no site at all.
    const after = await Promise.all(Array.from({ length: 4 }, () => database.withSystem((tx) => tx.query(setting))));
    expect(after.flat().map((row) => row.site ?? '')).toEqual(['', '', '', '']);
  });

  it('sees only the site`s rows under row-level security, and recovers from a failed statement', async () => {
    const [siteA, siteB] = [`rt-a-${Date.now()}`, `rt-b-${Date.now()}`];
    try {
      await owner.query(sql`
        INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
        VALUES (${siteA}, ${`${siteA}/probe/1`}, 1, gen_random_uuid(), 'probe.created', '{}', '{}', 'h')`);
      const seen = (siteId: string) =>
        database.withSiteReads(siteId, (tx) => tx.query<{ site_id: string }>(sql`SELECT site_id FROM events WHERE stream_id LIKE 'rt-%'`));
      expect(await seen(siteA)).toEqual([{ site_id: siteA }]);
      expect(await seen(siteB)).toEqual([]);
      await expect(database.withSiteReads(siteA, (tx) => tx.query(sql`SELECT 1 / 0`))).rejects.toThrow(/division by zero/);
      await expect(database.withSite(siteA, (tx) => tx.query(sql`SELECT 1 / 0`))).rejects.toThrow(/division by zero/);
      expect(await seen(siteA)).toEqual([{ site_id: siteA }]);
    } finally {
      await owner.query(sql`DELETE FROM events WHERE site_id = ${siteA}`);
    }
  });

  it('sends deferred writes in order, each under the site set before it, with the COMMIT', async () => {
    const [siteA, siteB] = [`rt-a-${Date.now()}`, `rt-b-${Date.now()}`];
    const probe = (siteId: string, stream = 'deferred') => sql`
      INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
      VALUES (${siteId}, ${`${siteId}/probe/${stream}`}, 1, gen_random_uuid(), 'probe.created', '{}', '{}', 'h')`;
    try {
      const before = database.stats.queries;
      await database.withSystem(async (tx) => {
        await tx.setSite(siteA);
        tx.defer(probe(siteA));
        await tx.setSite(siteB);
        tx.defer(probe(siteB));
      });
      expect(database.stats.queries - before).toBe(2);
      const rows = await owner.query<{ site_id: string }>(sql`SELECT site_id FROM events WHERE stream_id LIKE '%/probe/deferred' AND site_id IN (${siteA}, ${siteB}) ORDER BY position`);
      expect(rows.map((row) => row.site_id)).toEqual([siteA, siteB]);
      // A deferred write that fails fails the transaction: nothing of it stays.
      await expect(
        database.withSystem(async (tx) => {
          await tx.setSite(siteA);
          tx.defer(probe(siteA, 'failed'));
          tx.defer(probe(siteB, 'failed'));
        }),
      ).rejects.toThrow(/row-level security/);
      expect(await owner.query(sql`SELECT 1 FROM events WHERE stream_id LIKE '%/probe/failed' AND site_id IN (${siteA}, ${siteB})`)).toEqual([]);
    } finally {
      await owner.query(sql`DELETE FROM events WHERE site_id IN (${siteA}, ${siteB})`);
    }
  });
});

describe('prepared statements', () => {
  it('prepare a marked statement once per connection, and prepare it again after a pipeline that failed', async () => {
    const table = identifier(`prepared_probe_${process.pid}_${Date.now()}`);
    await owner.query(sql`CREATE TABLE ${table} (n int PRIMARY KEY)`);
    const single = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1, asApplicationRole: false });
    const insert = (n: number) => prepared(sql`INSERT INTO ${table} (n) VALUES (${n})`);
    const preparedHere = async () =>
      (await single.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = ${statementName(insert(0).text)}`))[0]!.n;
    try {
      await single.withSystem(async (tx) => tx.defer(insert(1)));
      await single.withSystem(async (tx) => tx.defer(insert(2)));
      expect(await preparedHere()).toBe(1);
      // The statement fails (a duplicate key), then an earlier one of the pipeline fails before it: both roll back, and it still runs after.
      await expect(single.withSystem(async (tx) => tx.defer(insert(2)))).rejects.toThrow(/duplicate key/);
      await expect(
        single.withSystem(async (tx) => {
          tx.defer(sql`SELECT 1 / 0`);
          tx.defer(insert(3));
        }),
      ).rejects.toThrow(/division by zero/);
      await single.withSystem(async (tx) => tx.defer(insert(4)));
      expect((await owner.query<{ n: number }>(sql`SELECT n FROM ${table} ORDER BY n`)).map((row) => row.n)).toEqual([1, 2, 4]);
      expect(await preparedHere()).toBe(1);
    } finally {
      await single.close();
      await owner.query(sql`DROP TABLE IF EXISTS ${table}`);
    }
  });

  it('prepare a statement again on a connection that never completed its first pipeline', async () => {
    const table = identifier(`prepared_first_${process.pid}_${Date.now()}`);
    await owner.query(sql`CREATE TABLE ${table} (n int PRIMARY KEY)`);
    const single = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1, asApplicationRole: false });
    const insert = (n: number) => prepared(sql`INSERT INTO ${table} (n) VALUES (${n})`);
    try {
      // Prepared on the server, then the pipeline fails after it: unknown to the connection, closed and prepared again next time.
      await expect(
        single.withSystem(async (tx) => {
          tx.defer(insert(1));
          tx.defer(sql`SELECT 1 / 0`);
        }),
      ).rejects.toThrow(/division by zero/);
      await single.withSystem(async (tx) => tx.defer(insert(2)));
      await single.withSystem(async (tx) => tx.defer(insert(3)));
      expect((await owner.query<{ n: number }>(sql`SELECT n FROM ${table} ORDER BY n`)).map((row) => row.n)).toEqual([2, 3]);
    } finally {
      await single.close();
      await owner.query(sql`DROP TABLE IF EXISTS ${table}`);
    }
  });

  it('keep at most their capacity on the server, and answer each text with its own statement', async () => {
    const single = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1, statementsPerConnection: 3 });
    try {
      for (let round = 0; round < 2; round++) {
        for (let shape = 0; shape < 8; shape++) {
          const [row] = await single.withSiteReads('statement-cache-probe', (tx) =>
            tx.query<{ n: number }>(prepared(sql`SELECT ${shape}::int + ${raw(String(shape * 100))} AS n`)),
          );
          expect(row!.n).toBe(shape * 101);
        }
      }
      const [held] = await single.withSystem((tx) => tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_prepared_statements`));
      // The texts most recently used, the site setting among them.
      expect(held!.n).toBe(3);
    } finally {
      await single.close();
    }
  });

  it('plan a statement marked custom for its values, within its own transaction only', async () => {
    const mode = (plan?: 'custom') =>
      database.withSiteReads('plan-mode-probe', async (tx) => {
        const [row] = await tx.query<{ mode: string }>(prepared(sql`SELECT current_setting('plan_cache_mode') AS mode`, plan ? { plan } : {}));
        return row!.mode;
      });
    expect(await mode('custom')).toBe('force_custom_plan');
    expect(await mode()).toBe('auto');
    await database.withSite('plan-mode-probe', async (tx) => {
      expect((await tx.query<{ mode: string }>(sql`SELECT current_setting('plan_cache_mode') AS mode`))[0]!.mode).toBe('auto');
      await tx.query(prepared(sql`SELECT 1`, { plan: 'custom' }));
      expect((await tx.query<{ mode: string }>(sql`SELECT current_setting('plan_cache_mode') AS mode`))[0]!.mode).toBe('force_custom_plan');
    });
    expect(await mode()).toBe('auto');
  });

  it('prepare a statement again after a pipeline of it failed, as when a migration changed its result type', async () => {
    const table = identifier(`prepared_shape_${process.pid}_${Date.now()}`);
    await owner.query(sql`CREATE TABLE ${table} (n int)`);
    await owner.query(sql`INSERT INTO ${table} VALUES (1)`);
    const single = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1, asApplicationRole: false });
    const read = () => single.withSystem((tx) => tx.query(prepared(sql`SELECT * FROM ${table}`)));
    try {
      expect(await read()).toEqual([{ n: 1 }]);
      await owner.query(sql`ALTER TABLE ${table} ADD COLUMN m int DEFAULT 2`);
      await expect(read()).rejects.toThrow(/cached plan must not change result type/);
      expect(await read()).toEqual([{ n: 1, m: 2 }]);
    } finally {
      await single.close();
      await owner.query(sql`DROP TABLE IF EXISTS ${table}`);
    }
  });
});
