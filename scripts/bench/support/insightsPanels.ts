// The panels part of `npm run bench -- insights` (issue #32: "a count grouped by an indexed field over
// 1,000,000 items answers in under 500 ms"). In a scratch database: the service in process (panel
// cache off, so every call runs), a site whose `articles` declare `category` indexed (the field index
// builder makes its index), items seeded straight with SQL, ANALYZE, a dashboard with the panel
// `{ aggregate: count, groupBy: [category] }`; then its data route timed over HTTP (`--runs`, after a
// warm-up) for p50/p99, the same through the in-process query function, and EXPLAIN ANALYZE of the
// statement the items read path sends (recorded, run as the application role under row-level security).
//   npm run bench -- insights --part panels [--items 1000000] [--runs 20] [--keep]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';
import { accessFor } from '../../../src/access/access.ts';
import { createContext } from '../../../src/boot/boot.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { executePanelPlan, planPanelQuery } from '../../../src/modules/insights/panelQuery.ts';
import type { PanelQueryBody } from '../../../src/modules/insights/schemas.ts';
import { buildServer } from '../../../src/server/app.ts';
import { BENCH_INSTANCE_TOKEN, inProcessBenchEnvironment } from './benchService.ts';
import { prepareSite } from './benchSite.ts';
import { positiveInteger } from './options.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';
import { percentile } from './percentile.ts';

const usage = 'usage: npm run bench -- insights --part panels [--items 1000000] [--runs 20] [--keep]';
const SITE = 'insights';
const CATEGORIES = 12;
const TARGET_MS = 500;
const QUERY: PanelQueryBody = { collection: 'articles', aggregate: 'count', groupBy: ['category'] };

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function runPanels(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: { items: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '20' }, keep: { type: 'boolean', default: false } },
  });
  const items = positiveInteger(values.items as string, 'items', usage);
  const runs = positiveInteger(values.runs as string, 'runs', usage);
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_panels_${Date.now().toString(36)}`);
  console.log(`scratch database ${scratch.name}`);
  try {
    const config = loadConfig(
      inProcessBenchEnvironment(scratch.url, mkdtempSync(join(tmpdir(), 'svc-bench-panels-')), { SVC_PANEL_CACHE_SECONDS: '0', REDIS_URL: '' }),
    );
    const context = await createContext(config);
    const server = await buildServer(context);
    const base = `${await server.listen({ host: '127.0.0.1', port: 0 })}/api/v1`;
    const owner = new pg.Client({ connectionString: scratch.url });
    await owner.connect();
    try {
      await fetch(`${base}/instance/sites`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_INSTANCE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: SITE, adminEmail: `admin@${SITE}.bench`, adminPassword: 'bench password 0123456789' }),
      });
      const session = await prepareSite(base, SITE, true);
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${session.token}`, 'x-svc-site': SITE, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
        return JSON.parse(text);
      };
      await call('POST', '/collections', {
        name: 'articles',
        fields: [
          { field: 'title', type: 'string' },
          { field: 'category', type: 'string', indexed: true },
          { field: 'views', type: 'integer' },
          { field: 'published_at', type: 'dateTime' },
        ],
      });
      await indexReady(owner);
      await seed(owner, items);

      const dashboard = (await call('POST', '/dashboards', { name: 'Bench' })).data;
      const panel = (await call('POST', `/dashboards/${dashboard.id}/panels`, { name: 'Per category', type: 'bar', position: { x: 0, y: 0, width: 6, height: 4 }, query: QUERY })).data;
      const first = await call('POST', `/dashboards/${dashboard.id}/panels/${panel.id}/data`);
      const counted = (first.data as { value: number }[]).reduce((total, row) => total + row.value, 0);
      console.log(`the panel answers ${first.data.length} groups, ${counted.toLocaleString('en')} items in all (${items.toLocaleString('en')} seeded)`);

      const access = await accessFor(context, SITE, { kind: 'instance' });
      const schema = await context.schemas.site(SITE);
      const measure = async (label: string) => {
        console.log(`\n-- ${label}`);
        const http: number[] = [];
        for (let run = 0; run < runs; run += 1) {
          const started = performance.now();
          await call('POST', `/dashboards/${dashboard.id}/panels/${panel.id}/data`);
          http.push(performance.now() - started);
        }
        const inProcess: number[] = [];
        for (let run = 0; run < runs; run += 1) {
          const started = performance.now();
          await executePanelPlan(context, access, planPanelQuery(schema, access, QUERY, new Date()), { actor: { kind: 'system', id: 'bench' } });
          inProcess.push(performance.now() - started);
        }
        for (const [name, timings] of [['POST …/panels/:panelId/data (HTTP)', http], ['executePanelPlan (in process)', inProcess]] as const) {
          const sorted = [...timings].sort((a, b) => a - b);
          const p99 = percentile(sorted, 99);
          console.log(`${name}: ${runs} runs, p50 ${ms(percentile(sorted, 50))}, p99 ${ms(p99)}, max ${ms(sorted.at(-1)!)} ${p99 < TARGET_MS ? `(under ${TARGET_MS} ms)` : `(OVER ${TARGET_MS} ms)`}`);
        }
        for (const line of await explainPanel(context, access, schema)) console.log(`   ${line}`);
      };
      await measure('as the service runs it: the field index, and no statistics of the expression');
      // The index is partial, and PostgreSQL keeps no statistics of a partial index's expression: the
      // planner takes every item for a group of its own and walks the index in order (a heap read per
      // item). Statistics of the expression tell it there are few groups: a hash aggregate of a
      // (parallel) sequential scan. Not made by the field index builder today (docs/insights.md).
      await owner.query(`CREATE STATISTICS IF NOT EXISTS svc_bench_category ON ((data ->> 'category')) FROM items`);
      await owner.query('ANALYZE items');
      await measure("with CREATE STATISTICS ON ((data ->> 'category')) FROM items, analyzed");
    } finally {
      await owner.end();
      await server.close();
      await context.close();
    }
  } finally {
    if (values.keep) console.log(`kept ${scratch.name}`);
    else await scratch.drop();
  }
}

/** Waits until the field index builder reports the category index ready (it is built on the empty collection). */
async function indexReady(owner: pg.Client): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await owner.query<{ state: string }>(`SELECT state FROM item_field_indexes WHERE site_id = $1 AND collection = 'articles' AND field = 'category'`, [SITE]);
    if (rows[0]?.state === 'ready') return;
    if (rows[0]?.state === 'failed' || Date.now() > deadline) throw new Error(`the category index is ${rows[0]?.state ?? 'not asked for'}`);
    await delay(100);
  }
}

/** `items` articles in CATEGORIES categories (one in 50 without one), as the items projection stores them. */
async function seed(owner: pg.Client, items: number): Promise<void> {
  const started = performance.now();
  await owner.query(
    `INSERT INTO items (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data)
     SELECT $1, 'articles', lpad(n::text, 12, '0'), 'published', NULL,
            timestamptz '2024-01-01' + n * interval '1 minute', timestamptz '2024-01-01' + n * interval '1 minute', NULL, NULL, NULL, 1,
            jsonb_strip_nulls(jsonb_build_object(
              'title', 'Article ' || n,
              'category', CASE WHEN n % 50 = 0 THEN NULL ELSE 'category-' || lpad((n % $3)::text, 2, '0') END,
              'views', (n * 7919) % 1000,
              'published_at', to_char((timestamptz '2020-01-01' + ((n * 104729) % 100000000) * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       FROM generate_series(1, $2::bigint) AS n`,
    [SITE, items, CATEGORIES],
  );
  await owner.query('VACUUM ANALYZE items');
  console.log(`seeded ${items.toLocaleString('en')} items in ${((performance.now() - started) / 1000).toFixed(1)} s (with VACUUM ANALYZE)`);
}

/** EXPLAIN ANALYZE of the aggregate statement the items read path sends for the panel, recorded on its way. */
async function explainPanel(
  context: Awaited<ReturnType<typeof createContext>>,
  access: Awaited<ReturnType<typeof accessFor>>,
  schema: Awaited<ReturnType<typeof context.schemas.site>>,
): Promise<string[]> {
  const recorded: SqlQuery[] = [];
  const recording: Database = {
    ...context.database,
    withSiteReads: (site, work) =>
      context.database.withSiteReads(site, (tx) =>
        work({
          ...tx,
          query: async <Row extends object>(query: SqlQuery) => {
            recorded.push(query);
            return tx.query<Row>(query);
          },
        }),
      ),
  };
  await executePanelPlan({ ...context, database: recording }, access, planPanelQuery(schema, access, QUERY, new Date()), { actor: { kind: 'system', id: 'bench' } });
  const statement = recorded.find((query) => /GROUP BY/.test(query.text));
  if (!statement) return ['(no grouped statement recorded)'];
  const plan = await context.database.withSiteReads(SITE, (tx) =>
    tx.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.text}`, values: statement.values }),
  );
  return [`plan of: ${statement.text.replace(/\s+/g, ' ').trim()}`, ...plan.map((row) => row['QUERY PLAN']).filter((line) => !/Buffers:|Worker \d:/.test(line))];
}
