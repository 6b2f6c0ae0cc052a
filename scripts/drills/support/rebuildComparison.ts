// Whether the read models a crash left converge to what a rebuild from the log gives: every table
// of every projection snapshotted (rows as sorted JSON lines), `svc projections rebuild --all` run as
// an operator would, the async projections caught up again, snapshotted again, compared table by table.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { projections } from '../../../projections/index.ts';
import { waitFor } from './figures.ts';
import { asyncProjectionsCaughtUp } from './readModelChecks.ts';
import { DRILL_SECRET } from './serviceInstance.ts';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Columns a maintainer (not an event) writes, left out of the comparison, with the reason:
 * `item_field_indexes.state`/`error`/`updated_at` are the field index builder's record of its DDL
 * (projections/schemaProjection.ts `maintainers`); a rebuild records the indexes anew and the
 * builder brings them back to ready afterwards.
 */
const MAINTAINED_COLUMNS: Record<string, string[]> = {
  item_field_indexes: ['state', 'error', 'updated_at'],
};

export type Snapshot = Map<string, string[]>;

export async function snapshotReadModels(owner: pg.Pool): Promise<Snapshot> {
  const snapshot: Snapshot = new Map();
  for (const table of new Set(projections.flatMap((projection) => projection.tables))) {
    const { rows } = await owner.query(`SELECT * FROM ${table}`);
    const skipped = MAINTAINED_COLUMNS[table] ?? [];
    snapshot.set(
      table,
      rows.map((row: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !skipped.includes(column))))).sort(),
    );
  }
  return snapshot;
}

export interface TableDifference {
  table: string;
  /** Rows only before the rebuild (what the incremental run wrote that a rebuild does not). */
  onlyBefore: string[];
  /** Rows only after it. */
  onlyAfter: string[];
}

export function compareSnapshots(before: Snapshot, after: Snapshot): TableDifference[] {
  const differences: TableDifference[] = [];
  for (const [table, rows] of before) {
    const rebuilt = after.get(table) ?? [];
    const rebuiltSet = new Set(rebuilt);
    const beforeSet = new Set(rows);
    const onlyBefore = rows.filter((row) => !rebuiltSet.has(row));
    const onlyAfter = rebuilt.filter((row) => !beforeSet.has(row));
    if (onlyBefore.length > 0 || onlyAfter.length > 0 || rows.length !== rebuilt.length) differences.push({ table, onlyBefore, onlyAfter });
  }
  return differences;
}

/** `svc projections rebuild --all` on the drill's database, as its owner (the CLI's way). */
export async function rebuildAll(databaseUrl: string, dataDir: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/svc.mjs', 'projections', 'rebuild', '--all', '--no-progress'], {
    cwd: repositoryRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl, SVC_DATA_DIR: dataDir, SVC_SECRET: DRILL_SECRET, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`svc projections rebuild --all exited with ${code}: ${errors.slice(-2_000)}`);
}

/** Snapshot, rebuild, catch up, snapshot: the tables whose rows differ. */
export async function rebuildAndCompare(owner: pg.Pool, databaseUrl: string, dataDir: string): Promise<{ tables: number; rows: number; differences: TableDifference[] }> {
  const before = await snapshotReadModels(owner);
  await rebuildAll(databaseUrl, dataDir);
  await waitFor(() => asyncProjectionsCaughtUp(owner), 60_000, 200);
  const after = await snapshotReadModels(owner);
  return { tables: before.size, rows: [...before.values()].reduce((sum, rows) => sum + rows.length, 0), differences: compareSnapshots(before, after) };
}
