// Every sort's nulls placement is served by an index at a million items: seeds 1,000,000 articles
// straight with SQL in a scratch database (DATABASE_URL's server), builds the field indexes the
// schema asks for (svc_item_field_index_statement: the plain kind and its `:desc` twin), then
// EXPLAIN ANALYZEs, as the application role under row-level security, the list statement shape the
// service sends (src/query: parseListQuery, compileFilter, compileSort; limit 25) for `sort=-field`
// and `sort=field`, with `nulls=first` and without, with and without a filter. A plan passes when it
// reads no table sequentially and sorts nothing whole (an Incremental Sort on an index's order, for
// the id tie-break, is fine). Exit code 1 when one fails. Too slow for the test suite (a minute or two).
//   npm run bench -- sortIndexes [--items 1000000] [--ascending-only] [--keep] [--reuse <database>]
// --ascending-only builds only the plain kind's index (the indexes before migration 0491): the
// descending sorts then show the full sort that migration removes. Far below a million items the
// planner may rightly prefer a filter's index and a sort of its few rows (a FAIL that is no fault).
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { compileFilter, compileSort, parseListQuery, type FieldDefinition, type FieldMap } from '../../src/query/index.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const SITE = 'sortcheck';
const COLLECTION = 'articles';
/** The indexed fields and their index kinds (projections/schemaProjection.ts indexKindOf). */
const INDEXED: readonly { field: string; kind: string }[] = [
  { field: 'views', kind: 'numeric' },
  { field: 'published_at', kind: 'text' },
  { field: 'category', kind: 'text' },
];
const FIELDS: FieldMap = new Map<string, FieldDefinition>([
  ['title', { field: 'title', type: 'string' }],
  ['views', { field: 'views', type: 'integer' }],
  ['published_at', { field: 'published_at', type: 'dateTime' }],
  ['category', { field: 'category', type: 'string' }],
]);
/** What each list asks; every one with limit 25. */
const LISTS = [
  'sort=-views',
  'sort=views',
  'sort=-views&nulls=first',
  'sort=views&nulls=first',
  'sort=-published_at',
  'sort=published_at',
  'sort=-views,title',
  'filter[category][_eq]=c3&sort=-views',
  'filter[category][_eq]=c3&sort=views',
  'filter[status][_eq]=published&sort=-published_at',
  'filter[status][_eq]=published&sort=published_at&nulls=first',
  'filter[views][_gt]=500&sort=-views',
  'sort=-sort',
  'sort=sort',
  'sort=-createdAt',
  'filter[status][_eq]=draft&sort=-updatedAt',
];

const usage = `usage: npm run bench -- sortIndexes [--items 1000000] [--ascending-only] [--keep] [--reuse <database>]`;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '1000000' },
      'ascending-only': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const items = positiveInteger(values.items, 'items', usage);
  const scratch = await createScratchDatabase(scratchServerUrl(), values.reuse ?? `svc_sort_check_${Date.now().toString(36)}`, { reuse: values.reuse !== undefined });
  console.log(`scratch database ${scratch.name}`);
  let failed = 0;
  try {
    await migrate(scratch.url);
    const owner = new pg.Client({ connectionString: scratch.url });
    await owner.connect();
    try {
      if (!values.reuse) await seed(owner, items);
      await buildFieldIndexes(owner, values['ascending-only']);
      await owner.query('ANALYZE items');
    } finally {
      await owner.end();
    }
    const database = createDatabase({ connectionString: scratch.url, poolSize: 1 });
    try {
      for (const list of LISTS) failed += (await explain(database, list)) ? 0 : 1;
    } finally {
      await database.close();
    }
  } finally {
    if (values.keep || values.reuse) console.log(`kept ${scratch.name} (--reuse ${scratch.name})`);
    else await scratch.drop();
  }
  console.log(failed === 0 ? `all ${LISTS.length} lists are served by an index` : `${failed} of ${LISTS.length} lists are not served by an index`);
  if (failed > 0) process.exitCode = 1;
}

/** `items` articles: views missing on 30%, published_at on 20%, a manual sort on 10%, ten categories. */
async function seed(owner: pg.Client, items: number): Promise<void> {
  const started = Date.now();
  await owner.query(
    `INSERT INTO items (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data)
     SELECT $1, $2, lpad(n::text, 12, '0'), (ARRAY['published', 'published', 'draft', 'archived'])[n % 4 + 1],
            CASE WHEN n % 10 = 0 THEN n / 10 END,
            timestamptz '2024-01-01' + n * interval '1 minute', timestamptz '2024-01-01' + n * interval '1 minute', NULL, NULL, NULL, 1,
            jsonb_strip_nulls(jsonb_build_object(
              'title', 'Article ' || n,
              'category', 'c' || (n % 10),
              'views', CASE WHEN n % 10 < 3 THEN NULL ELSE (n * 7919) % 1000 END,
              'published_at', CASE WHEN n % 5 = 0 THEN NULL ELSE to_char((timestamptz '2020-01-01' + ((n * 104729) % 100000000) * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END))
       FROM generate_series(1, $3::bigint) AS n`,
    [SITE, COLLECTION, items],
  );
  console.log(`seeded ${items.toLocaleString('en')} items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function buildFieldIndexes(owner: pg.Client, ascendingOnly: boolean): Promise<void> {
  const started = Date.now();
  for (const { field, kind } of INDEXED) {
    const { rows } = await owner.query<{ text: string }>('SELECT svc_item_field_index_statement($1, $2, $3, $4) AS text', [SITE, COLLECTION, field, kind]);
    await owner.query(rows[0]!.text);
    const descending = `${kind}:desc`;
    if (ascendingOnly) {
      // A reused database may hold the twin from an earlier run.
      const [{ name }] = (await owner.query<{ name: string }>('SELECT svc_item_field_index_name($1, $2, $3, $4) AS name', [SITE, COLLECTION, field, descending])).rows as [{ name: string }];
      await owner.query(`DROP INDEX IF EXISTS ${owner.escapeIdentifier(name)}`);
    } else {
      const twin = await owner.query<{ text: string }>('SELECT svc_item_field_index_statement($1, $2, $3, $4) AS text', [SITE, COLLECTION, field, descending]);
      await owner.query(twin.rows[0]!.text);
    }
  }
  if (ascendingOnly) await owner.query('DROP INDEX IF EXISTS items_sort_desc');
  else await owner.query('CREATE INDEX IF NOT EXISTS items_sort_desc ON items (site_id, collection, sort DESC NULLS LAST) WHERE deleted_at IS NULL');
  console.log(`field indexes built in ${((Date.now() - started) / 1000).toFixed(1)} s${ascendingOnly ? ' (ascending only)' : ''}`);
}

/** The list statement's shape (src/modules/items/queries.ts listItems with meta=none), explained; true when an index serves it. */
async function explain(database: ReturnType<typeof createDatabase>, list: string): Promise<boolean> {
  const query = parseListQuery(Object.fromEntries(new URLSearchParams(`${list}&limit=25`)));
  const conditions: SqlFragment[] = [sql`i.site_id = ${SITE} AND i.collection = ${COLLECTION} AND i.deleted_at IS NULL`];
  if (query.filter) conditions.push(compileFilter(query.filter, { fields: FIELDS, alias: 'i', now: new Date() }));
  const where = conditions.reduce((all, condition) => sql`${all} AND ${condition}`);
  const statement = sql`SELECT i.id, i.status, i.data FROM items i WHERE ${where} ORDER BY ${compileSort(query.sort, FIELDS, 'i')} LIMIT ${query.limit} OFFSET 0`;
  const lines = await database.withSite(SITE, async (tx) =>
    (await tx.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${statement.text}`, values: statement.values })).map((row) => row['QUERY PLAN']),
  );
  const fullSort = lines.some((line) => /^\s*(->\s+)?Sort \(/.test(line));
  const seqScan = lines.some((line) => /Seq Scan/.test(line));
  const indexed = lines.some((line) => /Index (Only )?Scan/.test(line));
  const passed = indexed && !fullSort && !seqScan;
  const orderBy = statement.text.slice(statement.text.indexOf('ORDER BY') + 'ORDER BY'.length, statement.text.indexOf(' LIMIT')).trim();
  console.log(`\n${passed ? 'ok  ' : 'FAIL'} ${list}   ORDER BY ${orderBy}`);
  for (const line of lines) console.log(`     ${line}`);
  // The index gives the first key's order; ties (the empty values above all) are ordered by id as a group.
  const read = Math.max(0, ...lines.filter((line) => /Index (Only )?Scan/.test(line)).map((line) => Number(/actual rows=(\d+)/.exec(line)?.[1] ?? 0)));
  if (passed && read > 10_000) console.log(`     note: the index gives the order, but the id tie-break of one group of equal values read ${read.toLocaleString('en')} rows`);
  return passed;
}
