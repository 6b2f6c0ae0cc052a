// Who leads what: the session advisory locks of src/runtime/leaderElection.ts as pg_locks shows them,
// each named back from its key and mapped to the instance whose application_name holds it.
import type pg from 'pg';
import { advisoryKey } from '../../../src/runtime/projectionRunner.ts';
import { projections } from '../../../projections/index.ts';

/** The leader locks held for as long as an instance leads (not the per-run scheduler locks). */
export function leaderLockNames(withRedis: boolean): string[] {
  const names = projections.filter((projection) => projection.mode === 'async').map((projection) => `projection:${projection.name}`);
  return withRedis ? [...names, 'realtime-tailer'] : names;
}

/** lock name → instance name (`a`, `b`…) for the given names held now by a drill instance of this database. */
export async function leaders(owner: pg.Pool, names: readonly string[]): Promise<Map<string, string>> {
  const byKey = new Map(names.map((name) => [String(advisoryKey(name)), name]));
  const { rows } = await owner.query<{ key: string; application_name: string }>(`
    SELECT ((l.classid::bigint << 32) | l.objid::bigint)::text AS key, a.application_name
      FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND a.application_name LIKE 'drill-%'`);
  const held = new Map<string, string>();
  for (const row of rows) {
    const name = byKey.get(row.key);
    if (name) held.set(name, row.application_name.slice('drill-'.length));
  }
  return held;
}
