// What the drills check in the database itself (an owner connection, no row-level security): that
// the async projections applied each event once and caught up, that their checkpoints only moved
// forward, and what the log says was published.
import type pg from 'pg';
import { projections } from '../../../projections/index.ts';

export const ASYNC_PROJECTIONS = projections.filter((projection) => projection.mode === 'async').map((projection) => projection.name);

interface Cursor {
  txId: bigint;
  position: bigint;
}

const before = (a: Cursor, b: Cursor) => a.txId < b.txId || (a.txId === b.txId && a.position < b.position);

async function checkpoints(owner: pg.Pool): Promise<Map<string, Cursor>> {
  const { rows } = await owner.query<{ name: string; tx_id: string; position: string }>(
    `SELECT name, tx_id::text, position::text FROM projection_checkpoints WHERE name = ANY($1)`,
    [ASYNC_PROJECTIONS],
  );
  return new Map(rows.map((row) => [row.name, { txId: BigInt(row.tx_id), position: BigInt(row.position) }]));
}

/** Whether every async projection's checkpoint stands at the log head (as the gap-safe readers see it). */
export async function asyncProjectionsCaughtUp(owner: pg.Pool): Promise<boolean> {
  const { rows } = await owner.query<{ tx_id: string; global_position: string }>(`SELECT tx_id::text, global_position::text FROM svc_log_head()`);
  const head = rows[0];
  if (!head) return true;
  const at = await checkpoints(owner);
  const target = { txId: BigInt(head.tx_id), position: BigInt(head.global_position) };
  return ASYNC_PROJECTIONS.every((name) => at.has(name) && !before(at.get(name)!, target));
}

export interface CheckpointSampler {
  /** Samples taken. */
  samples(): number;
  /** `name: from → to` for each time a checkpoint moved back (a projection applied twice). */
  regressions(): string[];
  stop(): Promise<void>;
}

/** Reads the async checkpoints every `everyMs` and notes any that moved backwards. */
export function sampleCheckpoints(owner: pg.Pool, everyMs = 250): CheckpointSampler {
  const last = new Map<string, Cursor>();
  const regressions: string[] = [];
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        for (const [name, cursor] of await checkpoints(owner)) {
          const previous = last.get(name);
          if (previous && before(cursor, previous)) regressions.push(`${name}: ${previous.txId}/${previous.position} → ${cursor.txId}/${cursor.position}`);
          last.set(name, cursor);
        }
        samples += 1;
      } catch {
        // PostgreSQL away (a drill stopped it): sample again later
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples: () => samples,
    regressions: () => [...regressions],
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export interface FeedIntegrity {
  entries: number;
  /** Events with more than one change-feed entry (a projection applied twice). */
  duplicateEvents: number;
  /** Sites whose sequences are not 1..last_seq without a gap. */
  brokenSequences: string[];
  /** Audit rows beyond one per event. */
  duplicateAudit: number;
}

export async function feedAndAuditIntegrity(owner: pg.Pool, siteIds: readonly string[]): Promise<FeedIntegrity> {
  const duplicates = await owner.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM (SELECT event_id FROM cdc_feed WHERE site_id = ANY($1) GROUP BY event_id HAVING count(*) > 1) d`,
    [siteIds],
  );
  const sequences = await owner.query<{ site_id: string; entries: string; top: string | null; last_seq: string | null }>(
    `SELECT s.site_id, count(f.seq)::text AS entries, max(f.seq)::text AS top, s.last_seq::text
       FROM cdc_feed_sites s LEFT JOIN cdc_feed f ON f.site_id = s.site_id
      WHERE s.site_id = ANY($1) GROUP BY s.site_id, s.last_seq`,
    [siteIds],
  );
  const audit = await owner.query<{ n: string }>(`SELECT (count(*) - count(DISTINCT event_id))::text AS n FROM audit_log WHERE site_id = ANY($1)`, [siteIds]);
  return {
    entries: sequences.rows.reduce((sum, row) => sum + Number(row.entries), 0),
    duplicateEvents: Number(duplicates.rows[0]!.n),
    // Retention never runs in a drill (7 days), so a site's feed is 1..last_seq, dense.
    brokenSequences: sequences.rows.filter((row) => row.entries !== (row.top ?? '0') || row.entries !== row.last_seq).map((row) => `${row.site_id}: ${row.entries} entries, top ${row.top}, last_seq ${row.last_seq}`),
    duplicateAudit: Number(audit.rows[0]!.n),
  };
}

/** release id → the `trigger` of each `release.published` event of its stream. */
export async function publishEvents(owner: pg.Pool, siteId: string, releaseIds: readonly string[]): Promise<Map<string, string[]>> {
  const { rows } = await owner.query<{ stream_id: string; trigger: string }>(
    `SELECT stream_id, data->>'trigger' AS trigger FROM events WHERE site_id = $1 AND type = 'release.published' AND stream_id = ANY($2) ORDER BY position`,
    [siteId, releaseIds.map((id) => `${siteId}/release/${id}`)],
  );
  const byRelease = new Map<string, string[]>(releaseIds.map((id) => [id, []]));
  for (const row of rows) byRelease.get(row.stream_id.slice(`${siteId}/release/`.length))?.push(row.trigger);
  return byRelease;
}
