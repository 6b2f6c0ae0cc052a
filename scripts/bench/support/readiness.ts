// Readiness of a seeded benchmark database: the async read models caught up, the field indexes built.
import type pg from 'pg';
import { projections } from '../../../projections/index.ts';

/**
 * Waits until the async projections (search, change feed, audit…) have caught up, so that reads are
 * measured in a quiet system; returns the milliseconds it took.
 */
export async function waitForAsyncProjections(owner: pg.Client, { quiet = false } = {}): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { rows } = await owner.query<{ behind: string }>(`
      SELECT count(*) AS behind FROM projection_checkpoints c, (SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1) last
       WHERE (c.tx_id, c.position) < (last.tx_id, last.position)`);
    if (Number(rows[0]?.behind ?? 0) === 0) break;
    if (performance.now() - started > 30 * 60_000) throw new Error('async projections did not catch up in 30 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const elapsed = performance.now() - started;
  if (!quiet) console.log(`async projections caught up after ${Math.round(elapsed / 1000)} s`);
  return elapsed;
}

/** Field indexes are built after the schema command, by the field index builder: the list scenario needs them valid. */
export async function waitForFieldIndexes(owner: pg.Client, siteId: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await owner.query<{ state: string; error: string | null; count: string }>(
      `SELECT state, max(error) AS error, count(*) FROM item_field_indexes WHERE site_id = $1 GROUP BY state`,
      [siteId],
    );
    const failed = rows.find((row) => row.state === 'failed');
    if (failed) throw new Error(`a field index build failed: ${failed.error}`);
    if (rows.every((row) => row.state === 'ready')) break;
    if (Date.now() - started > 30 * 60_000) throw new Error('field indexes were not built in 30 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  if (seconds > 0) console.log(`field indexes ready after ${seconds} s`);
}

/**
 * Skips the async read models (change feed, search, field access log, audit) for a seed written
 * in-process: their checkpoints move to the head of the log, so the service does not replay the seed
 * into them. search_documents and the audit tables then hold none of it.
 */
export async function moveAsyncCheckpoints(owner: pg.Client): Promise<void> {
  const asyncNames = projections.filter((projection) => projection.mode === 'async').map((projection) => projection.name);
  await owner.query(
    `INSERT INTO projection_checkpoints (name, tx_id, position, updated_at)
     SELECT name, head.tx_id, head.global_position, now() FROM unnest($1::text[]) AS name, svc_log_head() AS head
     ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`,
    [asyncNames],
  );
}
