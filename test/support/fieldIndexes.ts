// Waiting for the field index builder in tests: index builds finish after the schema command that
// asked for them, on whichever instance leads the builds. The builder NOTIFYs svc_schema when an
// index row changes state, so a check runs again on each schema notification (and at least every
// 250 ms, in case the leader is another process whose notification was for another site), until a
// deadline.
import type pg from 'pg';
import type { TestService } from './testService.ts';

/** Resolves with the first truthy result of `check`; fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  service: TestService,
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await service.context.notifier.next('svc_schema', Math.min(250, Math.max(1, deadline - Date.now())));
  }
}

/** A connection that sees every site: a pg.Client, or a Database's pool. */
export interface OwnerConnection {
  query(text: string, values: unknown[]): Promise<pg.QueryResult>;
}

export interface IndexRow {
  collection: string;
  field: string;
  kind: string;
  index_name: string;
  state: string;
  error: string | null;
}

/** The site's index rows, ordered. */
export async function indexRowsOf(owner: OwnerConnection, siteId: string): Promise<IndexRow[]> {
  const { rows } = await owner.query(
    'SELECT collection, field, kind, index_name, state, error FROM item_field_indexes WHERE site_id = $1 ORDER BY collection, field, kind',
    [siteId],
  );
  return rows as IndexRow[];
}

/**
 * Waits until no index of the site is building or dropping (fails at once on a failed build, with
 * its error), and returns the site's rows.
 */
export async function settledIndexes(service: TestService, owner: OwnerConnection, siteId: string, timeoutMs?: number): Promise<IndexRow[]> {
  return eventually(
    service,
    `the field indexes of ${siteId} to settle`,
    async () => {
      const rows = await indexRowsOf(owner, siteId);
      const failed = rows.find((row) => row.state === 'failed');
      if (failed) throw new Error(`index of ${failed.collection}.${failed.field} failed: ${failed.error}`);
      return rows.every((row) => row.state === 'ready') ? rows : null;
    },
    timeoutMs,
  );
}

/** The catalog's index of that name: its definition and whether it is valid (null when absent). */
export async function catalogIndex(owner: OwnerConnection, name: string): Promise<{ definition: string; valid: boolean } | null> {
  const { rows } = await owner.query(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition, i.indisvalid AS valid
       FROM pg_index i WHERE i.indexrelid = to_regclass('public.' || quote_ident($1))`,
    [name],
  );
  return (rows[0] as { definition: string; valid: boolean } | undefined) ?? null;
}
