// The Postgres pool and the two ways in: a site-scoped transaction (row-level security keyed on the
// site) and a system transaction for instance-level work.
import pg from 'pg';
import type { SqlQuery } from './sql.ts';

export const APPLICATION_ROLE = 'svc_app';

export interface Queryable {
  query<Row extends object = Record<string, unknown>>(query: SqlQuery): Promise<Row[]>;
  /** Sets the site whose rows the rest of this transaction may see (row-level security). */
  setSite(siteId: string): Promise<void>;
  /**
   * Sends `pg_notify(channel, payload)` once this transaction has committed (never if it rolls back).
   * A NOTIFY inside a transaction holds a database-wide lock through its commit, which serializes the
   * commits of every transaction that notifies; sent afterwards and coalesced, it costs appends nothing.
   */
  notifyAfterCommit(channel: string, payload: string): void;
}

export interface Database {
  /** Runs `work` in one transaction that sees only `siteId`'s rows. */
  withSite<T>(siteId: string, work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction with no site set: only instance-level tables are visible. */
  withSystem<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** One statement outside a transaction, no site set. */
  query<Row extends object = Record<string, unknown>>(query: SqlQuery): Promise<Row[]>;
  /** A dedicated connection, for LISTEN and session-level advisory locks. */
  connect(): Promise<pg.PoolClient>;
  readonly pool: pg.Pool;
  /** Statements sent through `query` (here and in transactions); tests use it to count a request's queries. */
  readonly stats: { queries: number };
  /**
   * Calls `listener` in this process with each after-commit notification of a committed transaction,
   * before the transaction's caller continues: this instance's caches see its own writes at once,
   * other instances hear the NOTIFY.
   */
  onCommitted(listener: (channel: string, payload: string) => void): () => void;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  connectionString: string;
  poolSize?: number;
  /** Connect as the application role that row-level security cannot be bypassed by (default true). */
  asApplicationRole?: boolean;
}

// Numeric columns arrive as JS numbers where that is exact; bigint identities stay safe up to 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export function createDatabase(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 20,
    options: options.asApplicationRole === false ? undefined : `-c role=${APPLICATION_ROLE}`,
  });
  const stats = { queries: 0 };
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Requests see errors on their own clients.
  });

  const notifications = createNotificationSender(pool);
  const committedListeners = new Set<(channel: string, payload: string) => void>();

  function queryable(client: pg.PoolClient, afterCommit: Map<string, Set<string>>): Queryable {
    return {
      async query<Row extends object>(query: SqlQuery) {
        stats.queries += 1;
        const result = await client.query<Row>(query.text, query.values);
        return result.rows;
      },
      async setSite(siteId: string) {
        await client.query(`SELECT set_config('svc.site_id', $1, true)`, [siteId]);
      },
      notifyAfterCommit(channel: string, payload: string) {
        let payloads = afterCommit.get(channel);
        if (!payloads) afterCommit.set(channel, (payloads = new Set()));
        payloads.add(payload);
      },
    };
  }

  async function transaction<T>(siteId: string | null, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query(
        siteId === null ? 'BEGIN' : `BEGIN; SELECT set_config('svc.site_id', ${literal(siteId)}, true)`,
      );
      const afterCommit = new Map<string, Set<string>>();
      const result = await work(queryable(client, afterCommit));
      await client.query('COMMIT');
      notifications.send(afterCommit);
      for (const [channel, payloads] of afterCommit) {
        for (const payload of payloads) {
          for (const listener of committedListeners) {
            try {
              listener(channel, payload);
            } catch {
              // A listener's failure must not turn a committed transaction into an error.
            }
          }
        }
      }
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  return {
    pool,
    stats,
    withSite: (siteId, work) => transaction(siteId, work),
    withSystem: (work) => transaction(null, work),
    async query<Row extends object>(query: SqlQuery) {
      stats.queries += 1;
      const result = await pool.query<Row>(query.text, query.values);
      return result.rows;
    },
    connect: () => pool.connect(),
    onCommitted(listener) {
      committedListeners.add(listener);
      return () => committedListeners.delete(listener);
    },
    async close() {
      await notifications.settled();
      await pool.end();
    },
  };
}

/**
 * Sends the notifications of committed transactions, several transactions' worth per statement: one
 * statement in flight at a time, the next carries everything that arrived meanwhile. A notification
 * lost with a crashed process only delays readers, which poll as a fallback.
 */
function createNotificationSender(pool: pg.Pool) {
  const pending = new Map<string, Set<string>>();
  let sending: Promise<void> | null = null;

  function schedule(): void {
    if (sending || pending.size === 0) return;
    sending = (async () => {
      while (pending.size > 0) {
        const channels: string[] = [];
        const payloads: string[] = [];
        for (const [channel, values] of pending) {
          for (const value of values) {
            channels.push(channel);
            payloads.push(value);
          }
        }
        pending.clear();
        await pool
          .query('SELECT pg_notify(channel, payload) FROM unnest($1::text[], $2::text[]) AS n(channel, payload)', [channels, payloads])
          .catch(() => undefined);
      }
    })().finally(() => {
      sending = null;
      schedule();
    });
  }

  return {
    send(notifications: Map<string, Set<string>>): void {
      for (const [channel, values] of notifications) {
        let payloads = pending.get(channel);
        if (!payloads) pending.set(channel, (payloads = new Set()));
        for (const value of values) payloads.add(value);
      }
      schedule();
    },
    async settled(): Promise<void> {
      while (sending) await sending;
    },
  };
}

/** A quoted SQL string literal; used only where a parameter cannot go (a multi-statement text). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
