// Rebuild tests: read models rebuilt from the log must hold the rows the incremental run wrote.
import { expect } from 'vitest';
import type { Database } from '../../infra/postgres/database.ts';
import type { Projection } from '../../projections/projection.ts';
import { rebuildProjection } from '../../src/runtime/projectionRunner.ts';
import type { TestService } from './testService.ts';

export interface RebuildCheck {
  service: TestService;
  /** An owner connection to the service's database (a rebuild truncates). */
  owner: Database;
  projections: readonly Projection[];
  /** The rows of the read models, table by table, in a stable order. */
  snapshot: () => Promise<Record<string, string[]>>;
  /** Tables that must have rows before the rebuild, so that the comparison is not vacuous. */
  tablesWithRows: string[];
}

/** Snapshots the read models once the projections caught up, rebuilds them, and expects the same rows. */
export async function expectRebuildToGiveSameRows({ service, owner, projections, snapshot, tablesWithRows }: RebuildCheck): Promise<void> {
  await service.context.daemon.drain();
  const incremental = await snapshot();
  for (const table of tablesWithRows) expect(incremental[table]!.length, `${table} has rows to compare`).toBeGreaterThan(0);
  for (const projection of projections) await rebuildProjection(owner, projection);
  await service.context.daemon.drain();
  const rebuilt = await snapshot();
  for (const table of Object.keys(incremental)) expect(rebuilt[table], `rows of ${table}`).toEqual(incremental[table]);
}
