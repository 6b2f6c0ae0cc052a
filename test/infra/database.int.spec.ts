import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { identifier, sql } from '../../infra/postgres/sql.ts';

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
