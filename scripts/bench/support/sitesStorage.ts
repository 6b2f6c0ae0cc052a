// The sites bench's storage figures (scripts/bench/sites.ts): the database's growth per site and per
// item after the seed, its largest tables, and what a site costs before its first item.
import type pg from 'pg';
import { mib, thousands } from './sitesFormat.ts';

const NAMED_TABLES = ['events', 'items', 'item_history', 'search_documents'];

export async function databaseBytes(owner: pg.Client): Promise<number> {
  return Number((await owner.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
}

/** The database's growth per site and per item, its largest tables, and what a site costs before its first item. */
export async function measureStorage(owner: pg.Client, emptyBytes: number, firstSite: string, siteCount: number, itemTotal: number) {
  const bytes = await databaseBytes(owner);
  const { rows } = await owner.query<{ table: string; total: string; indexes: string; rows: string }>(
    `SELECT c.relname AS table, pg_total_relation_size(c.oid) AS total, pg_indexes_size(c.oid) AS indexes, greatest(c.reltuples, 0)::bigint AS rows
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname = 'public'
      ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  const tables = rows
    .filter((row, index) => index < 10 || NAMED_TABLES.includes(row.table))
    .map((row) => ({
      table: row.table,
      bytes: Number(row.total),
      indexBytes: Number(row.indexes),
      rows: Number(row.rows),
      bytesPerSite: Math.round(Number(row.total) / siteCount),
      bytesPerItem: Math.round(Number(row.total) / itemTotal),
    }));
  // Every site is alike at this point (the sampled sites' API keys come later): the first stands for all.
  const fixed = (
    await owner.query<{ events: string; bytes: string; item_events: string }>(
      `SELECT count(*) FILTER (WHERE type NOT LIKE 'item.%') AS events, coalesce(sum(pg_column_size(e.*)) FILTER (WHERE type NOT LIKE 'item.%'), 0) AS bytes,
              count(*) FILTER (WHERE type LIKE 'item.%') AS item_events
         FROM events e WHERE site_id = $1`,
      [firstSite],
    )
  ).rows[0]!;
  const storage = {
    databaseBytes: bytes,
    emptyDatabaseBytes: emptyBytes,
    bytesPerSite: Math.round((bytes - emptyBytes) / siteCount),
    bytesPerItem: Math.round((bytes - emptyBytes) / itemTotal),
    siteBeforeItems: { events: Number(fixed.events), eventBytes: Number(fixed.bytes), eventTypes: await eventTypesOf(owner, firstSite) },
    itemEventsPerSite: Number(fixed.item_events),
    tables,
    asyncReadModels: 'not built (checkpoints moved past the seed): search_documents, change feed and audit hold none of it',
  };
  console.log(
    `storage: ${mib(bytes)} MiB (${mib(emptyBytes)} MiB empty): ${thousands(storage.bytesPerSite)} B per site, ${thousands(storage.bytesPerItem)} B per item; ` +
      `a site before its items: ${storage.siteBeforeItems.events} events, ${thousands(storage.siteBeforeItems.eventBytes)} B`,
  );
  for (const table of tables) {
    console.log(`  ${table.table.padEnd(28)} ${String(mib(table.bytes)).padStart(9)} MiB  ${thousands(table.rows).padStart(11)} rows  ${thousands(table.bytesPerSite).padStart(9)} B/site`);
  }
  return storage;
}

async function eventTypesOf(owner: pg.Client, siteId: string): Promise<Record<string, number>> {
  const { rows } = await owner.query<{ type: string; count: string }>(
    `SELECT type, count(*) FROM events WHERE site_id = $1 AND type NOT LIKE 'item.%' GROUP BY type ORDER BY type`,
    [siteId],
  );
  return Object.fromEntries(rows.map((row) => [row.type, Number(row.count)]));
}
