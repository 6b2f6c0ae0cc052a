// The Postgres pool and the two ways in: a site-scoped transaction (row-level security keyed on the
// site) and a system transaction for instance-level work.
import { createRequire } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import type { PlanMode, SqlQuery } from './sql.ts';
import { StatementCache } from './statementCache.ts';

export const APPLICATION_ROLE = 'svc_app';

export interface Queryable {
  query<Row extends object = Record<string, unknown>>(query: SqlQuery): Promise<Row[]>;
  /**
   * Sends a statement whose rows nobody reads (a read model's write) with the transaction's next
   * round trip: ahead of the next `query`, in order, or with the COMMIT. Its error fails that round
   * trip, and so the transaction. Several projections' writes then cost one round trip, not one each.
   */
  defer(query: SqlQuery): void;
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
  /**
   * Runs `work`'s statements each in its own one-round-trip transaction that sees only `siteId`'s
   * rows, on one connection. For reads: at READ COMMITTED each statement of a transaction takes its
   * own snapshot anyway, so reads lose nothing, and each saves the BEGIN and COMMIT round trips.
   */
  withSiteReads<T>(siteId: string, work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction with no site set: only instance-level tables are visible. */
  withSystem<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** One statement outside a transaction, no site set. */
  query<Row extends object = Record<string, unknown>>(query: SqlQuery): Promise<Row[]>;
  /** A dedicated connection, for LISTEN and session-level advisory locks. */
  connect(): Promise<pg.PoolClient>;
  readonly pool: pg.Pool;
  /**
   * Statements sent through `query` (here and in transactions), and those of them sent in a site's
   * transaction or reads: tests count a request's statements with the second, which the instance's
   * own background work (queue polls, reactors, leader locks: system statements) never moves.
   */
  readonly stats: { queries: number; siteQueries: number };
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
  /** Prepared statements each connection keeps, the most recently used (default 200). */
  statementsPerConnection?: number;
}

/**
 * The release of a dedicated connection (LISTEN, advisory locks) for this checkout, which acts once:
 * its 'error' event can fire more than once (an error message, then the socket's end), and pg-pool
 * throws on a second release (or, had the client been handed out again, would take it from its new
 * holder).
 */
export function releaserOf(client: pg.PoolClient): (destroy?: boolean) => void {
  let released = false;
  return (destroy = false) => {
    if (released) return;
    released = true;
    client.release(destroy);
  };
}

// Numeric columns arrive as JS numbers where that is exact; bigint identities stay safe up to 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * How long a request waits for a connection (a free one of the pool, or a new one) before it fails.
 * With PostgreSQL down a request then answers 503 within this bound instead of hanging.
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 5_000;

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections (class 08 is checked apart).
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'the database system is starting up',
  'the database system is shutting down',
];

/**
 * Whether `error` says PostgreSQL cannot be reached right now (refused or lost connections, a server
 * shutting down or starting up, no connection within DATABASE_CONNECT_TIMEOUT_MS), as opposed to an
 * error of the statement itself. Follows `cause` and AggregateError's `errors` (a refused connection
 * to a name with several addresses).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (UNAVAILABLE_MESSAGES.some((text) => error.message.includes(text))) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}

export function createDatabase(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 20,
    options: options.asApplicationRole === false ? undefined : `-c role=${APPLICATION_ROLE}`,
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
  });
  const stats = { queries: 0, siteQueries: 0 };
  const statementCaches = new WeakMap<PgConnection, StatementCache>();
  const capacity = options.statementsPerConnection ?? 200;
  function statementCacheOf(connection: PgConnection): StatementCache {
    let cache = statementCaches.get(connection);
    if (!cache) statementCaches.set(connection, (cache = new StatementCache(capacity)));
    return cache;
  }
  function count(site: string | null): void {
    stats.queries += 1;
    if (site !== null) stats.siteQueries += 1;
  }
  function sendAfter(client: pg.PoolClient, prelude: Statement[], query: SqlQuery): Promise<pg.QueryResult> {
    return sendPipeline(client, statementCacheOf, prelude, query);
  }
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Requests see errors on their own clients.
  });
  // A checked-out client whose server goes away between two statements emits 'error' with no query
  // to fail (pg-pool listens only while it is idle): unheard, that would end the process. Its holder
  // sees the error on its next statement, and the pool drops the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });

  const notifications = createNotificationSender(pool);
  const committedListeners = new Set<(channel: string, payload: string) => void>();

  function announce(afterCommit: Map<string, Set<string>>): void {
    if (afterCommit.size === 0) return;
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
  }

  function collect(afterCommit: Map<string, Set<string>>) {
    return (channel: string, payload: string) => {
      let payloads = afterCommit.get(channel);
      if (!payloads) afterCommit.set(channel, (payloads = new Set()));
      payloads.add(payload);
    };
  }

  /**
   * A transaction that begins with its first statement: BEGIN and the site setting travel in the
   * same write and the same Sync as that statement (one round trip where three were), deferred
   * writes travel with the next statement or the COMMIT, and a transaction that sends nothing costs
   * nothing.
   */
  async function transaction<T>(siteId: string | null, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let begun = false;
    let broken = false;
    let site = siteId;
    const pending: Statement[] = [];
    const afterCommit = new Map<string, Set<string>>();
    /** What must precede the next statement: BEGIN and the site if not sent yet, then deferred writes. */
    function prelude(): Statement[] {
      const statements = begun ? pending.splice(0) : [BEGIN, ...(site === null ? [] : [setSiteStatement(site)]), ...pending.splice(0)];
      begun = true;
      return statements;
    }
    async function send(query: SqlQuery): Promise<pg.QueryResult> {
      const before = prelude();
      return before.length === 0 && !query.prepare ? client.query(query.text, query.values) : sendAfter(client, before, query);
    }
    const tx: Queryable = {
      async query<Row extends object>(query: SqlQuery) {
        count(site);
        return (await send(query)).rows as Row[];
      },
      defer(query: SqlQuery) {
        count(site);
        pending.push(statementOf(query));
      },
      async setSite(siteId: string) {
        // Before anything is queued it is the transaction's first setting; after, it takes its place in line.
        if (!begun && pending.length === 0) site = siteId;
        else pending.push(setSiteStatement(siteId));
      },
      notifyAfterCommit: collect(afterCommit),
    };
    try {
      const result = await work(tx);
      if (begun || pending.length > 0) await send(COMMIT);
      announce(afterCommit);
      return result;
    } catch (error) {
      if (begun) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async function siteReads<T>(siteId: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let site = siteId;
    const pending: Statement[] = [];
    const afterCommit = new Map<string, Set<string>>();
    try {
      const result = await work({
        // Deferred statements queue behind the site in effect when they were deferred (and any later
        // setting): the queue, when there is one, ends with the current site.
        async query<Row extends object>(query: SqlQuery) {
          count(site);
          const prelude = pending.length > 0 ? pending.splice(0) : [setSiteStatement(site)];
          return (await sendAfter(client, prelude, query)).rows as Row[];
        },
        defer(query: SqlQuery) {
          count(site);
          if (pending.length === 0) pending.push(setSiteStatement(site));
          pending.push(statementOf(query));
        },
        async setSite(siteId: string) {
          site = siteId;
          if (pending.length > 0) pending.push(setSiteStatement(siteId));
        },
        notifyAfterCommit: collect(afterCommit),
      });
      const last = pending.pop();
      if (last) await sendAfter(client, pending.splice(0), last);
      announce(afterCommit);
      return result;
    } finally {
      client.release();
    }
  }

  return {
    pool,
    stats,
    withSite: (siteId, work) => transaction(siteId, work),
    withSiteReads: (siteId, work) => siteReads(siteId, work),
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
 * The least time between two statements of notifications. A round trip costs the sending process
 * about as much CPU as a small statement costs the database (the write wakes another process); under
 * a stream of commits this gathers a few milliseconds' worth into each (measured: one notification
 * statement per two item updates without it). This instance's own listeners hear a commit at once
 * (onCommitted); only other processes' hear it up to this much later.
 */
const NOTIFY_GAP_MS = 10;

/**
 * Sends the notifications of committed transactions, several transactions' worth per statement: one
 * statement in flight at a time, the next carries everything that arrived meanwhile and leaves at
 * least NOTIFY_GAP_MS after it. A notification lost with a crashed process only delays readers,
 * which poll as a fallback.
 */
function createNotificationSender(pool: pg.Pool) {
  const pending = new Map<string, Set<string>>();
  let sending: Promise<void> | null = null;
  let lastSent = 0;

  function schedule(): void {
    if (sending || pending.size === 0) return;
    sending = (async () => {
      const wait = lastSent + NOTIFY_GAP_MS - Date.now();
      if (wait > 0) await delay(wait);
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
        lastSent = Date.now();
        if (pending.size > 0) await delay(NOTIFY_GAP_MS);
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

const SET_SITE = `SELECT set_config('svc.site_id', $1, true)`;
const BEGIN: Statement = { text: 'BEGIN', values: [] };
const COMMIT: SqlQuery = { text: 'COMMIT', values: [] };

function setSiteStatement(siteId: string): Statement {
  return { text: SET_SITE, values: [siteId], prepare: 'auto' };
}

/** Precedes a statement prepared with `plan: 'custom'`; holds to the end of its (possibly implicit) transaction. */
const CUSTOM_PLANS: Statement = { text: `SELECT set_config('plan_cache_mode', 'force_custom_plan', true)`, values: [], prepare: 'auto' };

interface Statement {
  text: string;
  values: unknown[];
  /** Prepared on each connection (sql.ts `prepared`); the others are parsed each time. */
  prepare?: PlanMode;
}

function statementOf(query: SqlQuery): Statement {
  return query.prepare ? { text: query.text, values: query.values, prepare: query.prepare } : { text: query.text, values: query.values };
}

type StatementCacheOf = (connection: PgConnection) => StatementCache;

/**
 * Sends `prelude` and then `query` in one write, under one Sync: one round trip, and one implicit
 * transaction when no transaction block is open (PostgreSQL commits an implicit transaction at Sync,
 * so a `set_config(..., true)` in the prelude holds for the query). The prelude's results are
 * dropped; an error in it fails the query. pg's Submittable interface, with the extended protocol
 * messages pg's own Query sends (parse, bind, describe, execute, sync).
 */
function sendPipeline(client: pg.PoolClient, cacheOf: StatementCacheOf, prelude: Statement[], query: SqlQuery): Promise<pg.QueryResult> {
  const statements = [...prelude, statementOf(query)];
  const firstCustom = statements.findIndex((statement) => statement.prepare === 'custom');
  if (firstCustom >= 0) statements.splice(firstCustom, 0, CUSTOM_PLANS);
  return new Promise((resolve, reject) => {
    const pipeline = new PipelinedQuery(statements, cacheOf, (error, result) => (error ? reject(error) : resolve(result!)));
    client.query(pipeline as unknown as pg.QueryConfig);
  });
}

interface PgConnection {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
}

// pg's own conversion of parameter values (dates, arrays, JSON, buffers), as its Query binds them.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

type QueryCallback = (error: Error | null, result?: pg.QueryResult) => void;

// pg.Query's message handlers, which the prelude's replies must skip; not in pg's type declarations.
interface QueryInternals {
  prepare(connection: PgConnection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
  handleError(error: Error, connection: PgConnection): void;
  handleReadyForQuery(connection: PgConnection): void;
  queryMode?: 'extended';
}

// Constructed from text, values and callback, not a config object: pg clones a config object through
// its property descriptors, a few microseconds per query on every request.
const BaseQuery = pg.Query as unknown as new (text: string, values: unknown[], callback: QueryCallback) => QueryInternals;

class PipelinedQuery extends BaseQuery {
  private unansweredPrelude: number;
  private readonly statements: Statement[];
  private readonly cacheOf: StatementCacheOf;
  private cache: StatementCache | null = null;

  /** `statements`: the prelude, whose results are dropped, then the query whose result is returned. */
  constructor(statements: Statement[], cacheOf: StatementCacheOf, callback: QueryCallback) {
    const query = statements.at(-1)!;
    super(query.text, query.values, callback);
    // Always the extended protocol (pg would send a query without values as a simple query).
    this.queryMode = 'extended';
    this.statements = statements;
    this.cacheOf = cacheOf;
    this.unansweredPrelude = statements.length - 1;
  }

  override prepare(connection: PgConnection): void {
    const cache = (this.cache = this.cacheOf(connection));
    const plan = cache.plan(this.statements.filter((statement) => statement.prepare).map((statement) => statement.text));
    for (const name of plan.evicted) connection.close({ type: 'S', name });
    const plans = plan.statements.values();
    try {
      this.statements.forEach((statement, index) => {
        const prepared = statement.prepare ? plans.next().value : undefined;
        const name = prepared?.name ?? '';
        if (prepared?.close) connection.close({ type: 'S', name });
        if (!prepared || prepared.parse) connection.parse({ text: statement.text, name, types: [] });
        connection.bind({ portal: '', statement: name, values: statement.values, valueMapper: prepareValue });
        // Only the query's rows are read: its portal is described for their columns.
        if (index === this.statements.length - 1) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
    } catch (error) {
      // A value that cannot be sent (pg's prepareValue threw): end the pipeline, fail the query.
      connection.sync();
      this.handleError(error as Error, connection);
      return;
    }
    connection.sync();
  }

  override handleError(error: Error, connection: PgConnection): void {
    this.cache?.failed();
    super.handleError(error, connection);
  }

  override handleReadyForQuery(connection: PgConnection): void {
    this.cache?.completed();
    super.handleReadyForQuery(connection);
  }

  override handleDataRow(message: unknown): void {
    if (this.unansweredPrelude === 0) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.unansweredPrelude > 0) this.unansweredPrelude -= 1;
    else super.handleCommandComplete(message, connection);
  }
}
