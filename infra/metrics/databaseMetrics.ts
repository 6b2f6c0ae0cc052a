// The metrics read from PostgreSQL at scrape time: the pool's connections, the log's head (its rate
// is the append rate of every instance) and each async projection's lag in events and seconds.
import type { Database } from '../postgres/database.ts';
import { sql } from '../postgres/sql.ts';
import type { Metrics } from './metrics.ts';

/** Events behind counted up to this many per projection (a bounded scan, however far behind it is). */
export const LAG_COUNT_CAP = 100_000;

export function sampleDatabase(metrics: Metrics, database: Database): void {
  const { pool } = database;
  // One read for both lag gauges of a scrape: they are collected together, a few milliseconds apart.
  let lastLag: { at: number; rows: Promise<LagRow[]> } | null = null;
  const lag = () => {
    if (lastLag === null || Date.now() - lastLag.at >= 1_000) {
      lastLag = { at: Date.now(), rows: database.query<LagRow>(sql`SELECT * FROM svc_projection_lag(${LAG_COUNT_CAP})`) };
    }
    return lastLag.rows;
  };
  metrics.sample('svc_db_pool_connections', 'PostgreSQL pool connections by state (total, idle, waiting: requests queued for one)', ['state'], () => [
    { labels: { state: 'total' }, value: pool.totalCount },
    { labels: { state: 'idle' }, value: pool.idleCount },
    { labels: { state: 'waiting' }, value: pool.waitingCount },
  ]);
  metrics.sample('svc_db_pool_max_connections', 'The PostgreSQL pool size (SVC_DB_POOL_SIZE)', [], () => [{ labels: {}, value: pool.options.max }]);
  metrics.sample(
    'svc_log_events_total',
    "The log's last position, all instances' appends: rate() of it is the event append rate",
    [],
    async () => {
      const [row] = await database.query<{ position: string }>(sql`SELECT svc_log_last_position() AS position`);
      return [{ labels: {}, value: Number(row?.position ?? 0) }];
    },
    'counter',
  );
  metrics.sample('svc_projection_lag_events', `Committed events an async projection has not applied yet (counted up to ${LAG_COUNT_CAP})`, ['projection'], async () => {
    const rows = await lag();
    return rows.map((row) => ({ labels: { projection: row.name }, value: Number(row.events_behind) }));
  });
  metrics.sample('svc_projection_lag_seconds', 'Age of the oldest event an async projection has not applied yet (0 when caught up)', ['projection'], async () => {
    const rows = await lag();
    return rows.map((row) => ({ labels: { projection: row.name }, value: row.seconds_behind }));
  });
}

interface LagRow {
  name: string;
  events_behind: string;
  seconds_behind: number;
}
