// The one way an instance leads a piece of background work: a PostgreSQL session advisory lock named
// by the work (`projection:<name>`, `scheduler:<task>`, `realtime-tailer`, `field-index-builder`).
// The instance whose session holds the lock leads; the others stand by and take over once it is
// released, or once the leader's connection dies (the lock dies with the session). Two forms:
// - a leader session holds its locks until it resigns (the projection daemon, the realtime log tailer,
//   the field index builder): work that must stop with the lock can run on its connection;
// - `runAsLeader` holds a lock for one run (a scheduled task): skipped when another instance holds it.
import type pg from 'pg';
import { releaserOf } from '../../infra/postgres/database.ts';
import { advisoryKey } from './projectionRunner.ts';

interface Connects {
  connect(): Promise<pg.PoolClient>;
}

export interface LeaderSession {
  /** Takes the named lock unless it is held already; true when this instance leads that work now. */
  lead(name: string): Promise<boolean>;
  /** Whether this instance leads that work now (without asking the database). */
  leads(name: string): boolean;
  /** The names this instance leads now. */
  led(): string[];
  /** The connection holding the locks (work that must die with them runs on it), or null. */
  readonly connection: pg.PoolClient | null;
  /**
   * Gives every lock up: unlocks and returns the connection to its pool, or (`destroy`, for a
   * connection that broke or runs a statement to cut short) ends the session, which frees its locks.
   */
  resign(options?: { destroy?: boolean }): Promise<void>;
}

export interface LeaderSessionOptions {
  /** Where the locking connection comes from (a pool: the application's, or an owner's). */
  database: Connects;
  /**
   * Keep the connection while leading nothing, so a standby retries on it (the daemon, which asks
   * every round); by default a standby gives it back and takes one for its next try.
   */
  keepWhileStandby?: boolean;
  /** The locking connection died: every lock went with it (called once per connection). */
  onLost?: () => void;
}

export function createLeaderSession(options: LeaderSessionOptions): LeaderSession {
  const held = new Set<string>();
  let connection: { client: pg.PoolClient; release: (destroy?: boolean) => void; onError: () => void } | null = null;

  async function connect(): Promise<NonNullable<typeof connection>> {
    if (connection) return connection;
    const client = await options.database.connect();
    const release = releaserOf(client);
    const current = {
      client,
      release,
      onError: () => {
        // The session ended, and every lock with it: stop leading until a lock is taken again.
        release(true);
        if (connection !== current) return;
        connection = null;
        held.clear();
        options.onLost?.();
      },
    };
    client.on('error', current.onError);
    connection = current;
    return current;
  }

  function giveBack(current: NonNullable<typeof connection>, destroy: boolean): void {
    if (connection === current) {
      connection = null;
      held.clear();
    }
    current.client.off('error', current.onError);
    current.release(destroy);
  }

  return {
    async lead(name) {
      if (held.has(name)) return true;
      const current = await connect();
      let locked: boolean;
      try {
        const result = await current.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [advisoryKey(name)]);
        locked = result.rows[0]?.locked === true;
      } catch (error) {
        if (held.size === 0) giveBack(current, true);
        throw error;
      }
      if (locked && connection === current) held.add(name);
      else if (held.size === 0 && !options.keepWhileStandby) giveBack(current, false);
      return locked && held.has(name);
    },
    leads: (name) => held.has(name),
    led: () => [...held],
    get connection() {
      return connection?.client ?? null;
    },
    async resign({ destroy = false } = {}) {
      const current = connection;
      if (!current) return;
      if (!destroy) await current.client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      giveBack(current, destroy);
    },
  };
}

/**
 * Runs `work` if no other instance is running the work of that name now, holding its lock on a
 * connection of `database` for the run; returns whether it ran.
 */
export async function runAsLeader(database: Connects, name: string, work: () => Promise<void>): Promise<boolean> {
  const client = await database.connect();
  const key = advisoryKey(name);
  try {
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (!result.rows[0]?.locked) return false;
    try {
      await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]);
    }
    return true;
  } finally {
    client.release();
  }
}
