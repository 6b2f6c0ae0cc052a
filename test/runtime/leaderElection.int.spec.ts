// The one leader election (src/runtime/leaderElection.ts): a named session lock held by one instance
// at a time, given up on resign and lost with the leader's connection; and one-off runs as leader.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { createDatabase } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { createLeaderSession, runAsLeader } from '../../src/runtime/leaderElection.ts';

const database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 6, asApplicationRole: false });
afterAll(() => database.close());
const work = () => `test:${randomUUID()}`;

describe('a leader session', () => {
  it('leads a name alone until it resigns, then another instance takes over', async () => {
    const name = work();
    const first = createLeaderSession({ database });
    const second = createLeaderSession({ database });
    expect(await first.lead(name)).toBe(true);
    expect(await second.lead(name)).toBe(false);
    expect(first.leads(name)).toBe(true);
    expect(second.leads(name)).toBe(false);
    await first.resign();
    expect(first.leads(name)).toBe(false);
    expect(await second.lead(name)).toBe(true);
    expect(second.led()).toEqual([name]);
    await second.resign();
  });

  it('gives a standby connection back unless asked to keep it', async () => {
    const name = work();
    const leader = createLeaderSession({ database });
    const standby = createLeaderSession({ database });
    const keeping = createLeaderSession({ database, keepWhileStandby: true });
    await leader.lead(name);
    expect(await standby.lead(name)).toBe(false);
    expect(standby.connection).toBeNull();
    expect(await keeping.lead(name)).toBe(false);
    expect(keeping.connection).not.toBeNull();
    await Promise.all([leader.resign(), standby.resign(), keeping.resign()]);
    expect(keeping.connection).toBeNull();
  });

  it('loses its locks with its connection, and says so once', async () => {
    const name = work();
    let lost = 0;
    const leader = createLeaderSession({ database, onLost: () => (lost += 1) });
    const standby = createLeaderSession({ database });
    expect(await leader.lead(name)).toBe(true);
    const [{ pid }] = (await leader.connection!.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
    await database.query(sql`SELECT pg_terminate_backend(${pid})`);
    for (let tries = 0; lost === 0 && tries < 100; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lost).toBe(1);
    expect(leader.leads(name)).toBe(false);
    expect(leader.connection).toBeNull();
    expect(await standby.lead(name)).toBe(true);
    await standby.resign();
    await leader.resign();
  });
});

describe('runAsLeader', () => {
  it('runs the work while no other instance does, and skips it while one does', async () => {
    const name = work();
    let runs = 0;
    expect(await runAsLeader(database, name, async () => void (runs += 1))).toBe(true);
    const holder = createLeaderSession({ database });
    await holder.lead(name);
    expect(await runAsLeader(database, name, async () => void (runs += 1))).toBe(false);
    await holder.resign();
    expect(await runAsLeader(database, name, async () => void (runs += 1))).toBe(true);
    expect(runs).toBe(2);
  });

  it('holds the lock through the run, and lets it go when the work fails', async () => {
    const name = work();
    const probe = createLeaderSession({ database });
    await expect(
      runAsLeader(database, name, async () => {
        expect(await probe.lead(name)).toBe(false);
        throw new Error('the task failed');
      }),
    ).rejects.toThrow('the task failed');
    expect(await probe.lead(name)).toBe(true);
    await probe.resign();
  });
});
