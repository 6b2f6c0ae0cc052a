// Builds and drops the expression indexes the content schema asks for (`item_field_indexes`, kept by
// projections/schemaProjection.ts) with CREATE / DROP INDEX CONCURRENTLY, outside any transaction, on
// an owner connection: writes to `items` go on while an index builds, and the schema command that
// asked for it has long returned. One instance builds at a time: the one leading
// `field-index-builder` (leaderElection.ts, a session advisory lock). That same connection runs the
// DDL, so if it dies its lock and its build die together, and the next builder finds the INVALID
// index the build left and starts over. Around each index's DDL it also holds FIELD_INDEX_DDL_LOCK,
// which tells schema transactions when the catalog may be about to change (see
// projections/schemaProjection.ts). Wakes on `svc_schema` (every schema commit, and every state it
// records), polls as a fallback.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { FIELD_INDEX_DDL_LOCK } from '../../projections/schemaProjection.ts';
import { createLeaderSession } from './leaderElection.ts';

export interface FieldIndexBuilderStats {
  /** CREATE INDEX CONCURRENTLY statements that made an index. */
  built: number;
  /** Indexes dropped because the schema no longer wants them. */
  dropped: number;
  /** INVALID indexes (a crashed or cancelled build's leftovers) dropped before building again. */
  repaired: number;
  /** Builds or drops that failed (recorded on the row, tried again later). */
  failed: number;
}

export interface FieldIndexBuilder {
  start(): void;
  /** Stops the loop; a build in flight is cancelled (the next builder repairs what it left). */
  stop(): Promise<void>;
  /** Whether this instance holds the builder lock now. */
  readonly leading: boolean;
  /** What this instance did since it started. */
  readonly stats: Readonly<FieldIndexBuilderStats>;
}

export interface FieldIndexBuilderOptions {
  /** An owner connection string: the application role does not own `items` and may not build on it. */
  connectionString: string;
  notifier: LogNotifier;
  logger: Logger;
  /** Fallback poll (and how soon a standby instance takes over from a builder that stopped). */
  pollMs: number;
  /** A failed build or drop is tried again after this delay, doubled after each failure up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

interface IndexRow {
  site_id: string;
  collection: string;
  field: string;
  kind: string;
  index_name: string;
  state: 'building' | 'ready' | 'failed' | 'dropping';
  error: string | null;
  /** The catalog's index of that name: valid, INVALID (false) or absent (null). */
  valid: boolean | null;
}

const BUILDER_LOCK = 'field-index-builder';
const APPLICATION_NAME = 'svc-field-index-builder';

const ROW_COLUMNS = `f.site_id, f.collection, f.field, f.kind, f.index_name, f.state, f.error, i.indisvalid AS valid
    FROM item_field_indexes f
    LEFT JOIN pg_index i ON i.indexrelid = to_regclass('public.' || quote_ident(f.index_name))`;
/** The indexes with work to do, in a stable order. */
const PENDING_ROWS = `SELECT ${ROW_COLUMNS} WHERE f.state <> 'ready' ORDER BY f.site_id, f.collection, f.field, f.kind`;
const ROW_KEY = 'site_id = $1 AND collection = $2 AND field = $3 AND kind = $4';
const ONE_ROW = `SELECT ${ROW_COLUMNS} WHERE f.site_id = $1 AND f.collection = $2 AND f.field = $3 AND f.kind = $4`;
const VALID_INDEX = `coalesce((SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('public.' || quote_ident(index_name))), false)`;

export function createFieldIndexBuilder(options: FieldIndexBuilderOptions): FieldIndexBuilder {
  const { notifier, logger } = options;
  const retryMs = options.retryMs ?? 60_000;
  const maxRetryMs = options.maxRetryMs ?? 3_600_000;
  const log = logger.child({ part: 'field-index-builder' });
  const stats: FieldIndexBuilderStats = { built: 0, dropped: 0, repaired: 0, failed: 0 };
  /** Rows whose last attempt failed: not tried again before `at`. */
  const retries = new Map<string, { at: number; delayMs: number }>();

  let database: Database | null = null;
  let leader: { client: pg.PoolClient; pid: number } | null = null;
  const leadership = createLeaderSession({
    database: { connect: () => (database ??= createDatabase({ connectionString: options.connectionString, poolSize: 2, asApplicationRole: false })).connect() },
    onLost: () => {
      // The builder connection died, and with it the lock and any build under way.
      leader = null;
    },
  });
  let busy = false;
  let stopped = false;
  let loop: Promise<void> | null = null;
  let unsubscribe: () => void = () => undefined;
  /** A schema commit seen while a pass ran: the next pass starts at once instead of after the poll. */
  let notified = false;
  const stopping = new AbortController();

  /** Takes the builder lock if no other instance holds it. The first time, re-checks indexes said to be ready. */
  async function lead(): Promise<pg.PoolClient | null> {
    if (leader) return leader.client;
    // Another instance builds: the pooled connection went back as it came.
    if (!(await leadership.lead(BUILDER_LOCK))) return null;
    const client = leadership.connection!;
    try {
      const [session] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      await client.query(`SET application_name = '${APPLICATION_NAME}'`);
      // DDL waits for the transactions it must outlast: no timeout of the role's defaults may cut it short.
      await client.query('SET statement_timeout = 0');
      leader = { client, pid: session!.pid };
      // An index can vanish or turn INVALID behind a row that says ready (dropped by hand, a restore):
      // such rows are built again.
      await client.query(`UPDATE item_field_indexes SET state = 'building' WHERE state = 'ready' AND NOT ${VALID_INDEX}`);
      log.info('leading field index builds');
      return client;
    } catch (error) {
      await leadership.resign({ destroy: true });
      leader = null;
      throw error;
    }
  }

  /** A statement that may run long (DDL, a lock wait): stop() cancels it. */
  async function statement<Row extends object>(client: pg.PoolClient, text: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> {
    if (stopped) throw new Error('the field index builder is stopping');
    busy = true;
    try {
      return await client.query<Row>(text, values);
    } finally {
      busy = false;
    }
  }

  const keyOf = (row: IndexRow) => [row.site_id, row.collection, row.field, row.kind];
  const indexOf = (client: pg.PoolClient, row: IndexRow) => `public.${client.escapeIdentifier(row.index_name)}`;

  async function validityOf(client: pg.PoolClient, row: IndexRow): Promise<boolean | null> {
    const result = await client.query<{ valid: boolean }>(
      `SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('public.' || quote_ident($1))`,
      [row.index_name],
    );
    return result.rows[0]?.valid ?? null;
  }

  /** Records a failure on the row (unless the schema changed its mind meanwhile) and backs off. */
  async function recordFailure(client: pg.PoolClient, row: IndexRow, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    stats.failed += 1;
    const previous = retries.get(row.index_name);
    const delayMs = previous ? Math.min(previous.delayMs * 2, maxRetryMs) : retryMs;
    retries.set(row.index_name, { at: Date.now() + delayMs, delayMs });
    log.warn({ err: error, index: row.index_name, site: row.site_id, collection: row.collection, field: row.field }, 'field index work failed');
    // A failed build marks a row that still wants the index; a failed drop keeps its row dropping.
    const stillAsked = row.state === 'dropping' ? `state = 'dropping'` : `state <> 'dropping'`;
    await client.query(
      `WITH failed AS (
         UPDATE item_field_indexes SET state = CASE WHEN state = 'dropping' THEN 'dropping' ELSE 'failed' END, error = $5
          WHERE ${ROW_KEY} AND ${stillAsked} RETURNING site_id)
       SELECT pg_notify('svc_schema', site_id) FROM failed`,
      [...keyOf(row), message],
    );
  }

  async function build(client: pg.PoolClient, row: IndexRow): Promise<void> {
    const scope = { index: row.index_name, site: row.site_id, collection: row.collection, field: row.field };
    if (row.valid === false) {
      // An INVALID index of this name is what a crashed, cancelled or failed build leaves (writes
      // still maintain it, the planner ignores it): drop it and build afresh.
      await statement(client, `DROP INDEX CONCURRENTLY IF EXISTS ${indexOf(client, row)}`);
      stats.repaired += 1;
      log.warn(scope, 'dropped an INVALID field index left by an earlier build');
    }
    if (row.valid !== true) {
      const started = Date.now();
      try {
        const [{ text }] = (
          await client.query<{ text: string }>('SELECT svc_item_field_index_statement($1, $2, $3, $4) AS text', keyOf(row))
        ).rows as [{ text: string }];
        await statement(client, text);
      } catch (error) {
        if (stopped) throw error;
        // A failed concurrent build leaves an INVALID index that every write would go on maintaining.
        if ((await validityOf(client, row)) === false) await statement(client, `DROP INDEX CONCURRENTLY IF EXISTS ${indexOf(client, row)}`);
        await recordFailure(client, row, error);
        return;
      }
      stats.built += 1;
      log.info({ ...scope, ms: Date.now() - started }, 'built a field index');
    }
    retries.delete(row.index_name);
    // A row that went to dropping meanwhile (a schema change while this build ran) is dropped next.
    await client.query(
      `WITH ready AS (
         UPDATE item_field_indexes SET state = 'ready', error = NULL WHERE ${ROW_KEY} AND state <> 'dropping' AND ${VALID_INDEX} RETURNING site_id)
       SELECT pg_notify('svc_schema', site_id) FROM ready`,
      keyOf(row),
    );
  }

  async function drop(client: pg.PoolClient, row: IndexRow): Promise<void> {
    try {
      await statement(client, `DROP INDEX CONCURRENTLY IF EXISTS ${indexOf(client, row)}`);
    } catch (error) {
      if (stopped) throw error;
      await recordFailure(client, row, error);
      return;
    }
    stats.dropped += 1;
    retries.delete(row.index_name);
    log.info({ index: row.index_name, site: row.site_id, collection: row.collection, field: row.field }, 'dropped a field index');
    // A row wanted again meanwhile is building now: it is built next.
    await client.query(
      `WITH gone AS (DELETE FROM item_field_indexes WHERE ${ROW_KEY} AND state = 'dropping' RETURNING site_id)
       SELECT pg_notify('svc_schema', site_id) FROM gone`,
      keyOf(row),
    );
  }

  /**
   * Does what one row asks, holding FIELD_INDEX_DDL_LOCK: taking it waits for the schema
   * transactions that trusted the catalog, and the row is read again after them.
   */
  async function settle(client: pg.PoolClient, pending: IndexRow): Promise<void> {
    await statement(client, 'SELECT pg_advisory_lock($1)', [FIELD_INDEX_DDL_LOCK]);
    try {
      const [row] = (await client.query<IndexRow>(ONE_ROW, keyOf(pending))).rows;
      if (!row) return;
      if (row.state === 'dropping') await drop(client, row);
      else if (row.state !== 'ready' || row.valid !== true) await build(client, row);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [FIELD_INDEX_DDL_LOCK]);
    }
  }

  /** Works through the pending rows until none is left that this pass has not tried in its current state. */
  async function pass(client: pg.PoolClient): Promise<void> {
    const tried = new Set<string>();
    while (!stopped && leader?.client === client) {
      const rows = (await client.query<IndexRow>(PENDING_ROWS)).rows;
      const now = Date.now();
      const next = rows.find((row) => {
        if (tried.has(`${row.index_name}:${row.state}`)) return false;
        const retry = retries.get(row.index_name);
        return row.error === null || !retry || retry.at <= now;
      });
      if (!next) return;
      tried.add(`${next.index_name}:${next.state}`);
      await settle(client, next);
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      try {
        const client = await lead();
        if (client) await pass(client);
      } catch (error) {
        if (!stopped) log.error({ err: error }, 'field index builder step failed; trying again');
        // A broken builder connection is replaced; the next leader picks up where this one stopped.
        await leadership.resign({ destroy: true });
        leader = null;
      }
      if (notified || stopped) {
        notified = false;
        continue;
      }
      await notifier.next('svc_schema', options.pollMs, stopping.signal);
    }
  }

  return {
    get leading() {
      return leader !== null;
    },
    stats,
    start() {
      if (loop || stopped) return;
      unsubscribe = notifier.on('svc_schema', () => {
        notified = true;
      });
      loop = run();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      stopping.abort();
      // Shutdown does not wait for a long build: cancel it (its INVALID leftover is repaired later).
      // Again every second: a cancel that reaches the server just before the statement is lost.
      const cancel = async () => {
        if (busy && leader && database) await database.query(sql`SELECT pg_cancel_backend(${leader.pid})`).catch(() => undefined);
      };
      await cancel();
      const cancelling = setInterval(() => void cancel(), 1_000);
      try {
        await loop;
      } finally {
        clearInterval(cancelling);
      }
      // Ending the session releases the builder lock.
      await leadership.resign({ destroy: true });
      leader = null;
      await database?.close();
    },
  };
}
