// The Postgres pool and the two ways in: a site-scoped transaction (row-level security keyed on the
// site) and a system transaction for instance-level work.
import pg from 'pg';
import type { SqlQuery } from './sql.ts';

export const APPLICATION_ROLE = 'svc_app';

export interface Queryable {
  query<Row extends object = Record<string, unknown>>(query: SqlQuery): Promise<Row[]>;
  /** Sets the site whose rows the rest of this transaction may see (row-level security). */
  setSite(siteId: string): Promise<void>;
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
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Requests see errors on their own clients.
  });

  function queryable(client: pg.PoolClient): Queryable {
    return {
      async query<Row extends object>(query: SqlQuery) {
        const result = await client.query<Row>(query.text, query.values);
        return result.rows;
      },
      async setSite(siteId: string) {
        await client.query(`SELECT set_config('svc.site_id', $1, true)`, [siteId]);
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
      const result = await work(queryable(client));
      await client.query('COMMIT');
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
    withSite: (siteId, work) => transaction(siteId, work),
    withSystem: (work) => transaction(null, work),
    async query<Row extends object>(query: SqlQuery) {
      const result = await pool.query<Row>(query.text, query.values);
      return result.rows;
    },
    connect: () => pool.connect(),
    close: () => pool.end(),
  };
}

/** A quoted SQL string literal; used only where a parameter cannot go (a multi-statement text). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
