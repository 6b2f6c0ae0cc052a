// The Studio's figures (issue #37): the initial bundle's compressed size, and how soon the first page of
// a 1,000,000-item collection is on screen after navigation, in headless Chromium on this machine.
//   npm run bench -- studio [--items 1000000] [--rounds 10] [--keep] [--reuse <database>]
// A scratch database on DATABASE_URL's server (or the local default); the collection is made through
// the API, its items are written straight with SQL into the items read model (the list reads only it;
// a million commands would take the seed, not the Studio, most of the time). Two navigations, each
// `--rounds` times: a full page load of /studio/collections/articles (the bundle, the session restored
// through the refresh cookie, the schema and the list), and the in-app move from the collections page
// by its link. Timed from the navigation's start to the first row of the table being visible.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { migrate } from '../../infra/postgres/migrate.ts';
import { buildStudio, studioIsStale } from '../studio/build.mjs';
import { freePort } from '../drills/support/freePort.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { percentile } from './support/percentile.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const usage = 'usage: npm run bench -- studio [--items 1000000] [--rounds 10] [--keep] [--reuse <database>]';
const SITE = 'studiobench';
const COLLECTION = 'articles';
const ON_SCREEN_TARGET_MS = 1_000;
const BUNDLE_TARGET_BYTES = 300 * 1024;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '1000000' },
      rounds: { type: 'string', default: '10' },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void console.log(usage);
  const items = positiveInteger(values.items, 'items', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);

  if (studioIsStale()) buildStudio();
  const bundle = bundleSizes();
  console.log(`initial bundle: ${kb(bundle.raw)} raw, ${kb(bundle.gzip)} gzip, ${kb(bundle.brotli)} brotli (${bundle.files.join(', ')}); target < ${kb(BUNDLE_TARGET_BYTES)} compressed: ${bundle.gzip < BUNDLE_TARGET_BYTES ? 'met' : 'NOT met'}`);

  const reuse = values.reuse !== undefined;
  const scratch = await createScratchDatabase(scratchServerUrl(), values.reuse ?? `svc_studio_bench_${Date.now().toString(36)}`, { reuse });
  console.log(`scratch database ${scratch.name}`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/api/v1`;
  let service: ReturnType<typeof startBenchService> | null = null;
  try {
    if (!reuse) await migrate(scratch.url);
    service = startBenchService(scratch.url, port, { SVC_DATA_DIR: `/tmp/${scratch.name}` });
    await waitForHealth(base, service);
    const admin = await prepareSite(base, SITE, reuse);
    if (!reuse) await seed(base, admin.token, scratch.url, items);

    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await (await browser.newContext({ baseURL: origin, viewport: { width: 1280, height: 800 } })).newPage();
      await page.goto('/studio/signin');
      await page.getByLabel('Site').fill(SITE);
      await page.getByLabel('Email').fill(`admin@${SITE}.bench`);
      await page.getByLabel('Password').fill('bench password 0123456789');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Studio' }).waitFor();
      const firstRow = page.locator('main table[aria-label] tbody tr').first();

      const reload: number[] = [];
      const inApp: number[] = [];
      for (let round = 0; round <= rounds; round += 1) {
        let started = Date.now();
        await page.goto(`/studio/collections/${COLLECTION}`);
        await firstRow.waitFor();
        if (round > 0) reload.push(Date.now() - started); // the first round warms the database's cache
        await page.goto('/studio/collections');
        const link = page.locator('main').getByRole('link', { name: new RegExp(COLLECTION, 'i') }).first();
        await link.waitFor();
        started = Date.now();
        await link.click();
        await firstRow.waitFor();
        if (round > 0) inApp.push(Date.now() - started);
      }
      report('full page load to the first row', reload);
      report('in-app navigation to the first row', inApp);
    } finally {
      await browser.close();
    }
  } finally {
    if (service) await stopBenchService(service);
    if (values.keep || reuse) console.log(`kept ${scratch.name} (--reuse ${scratch.name})`);
    else await scratch.drop();
  }
}

function report(name: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p95 = percentile(sorted, 95);
  console.log(`${name}: p50 ${p50} ms, p95 ${p95} ms, max ${sorted.at(-1)} ms over ${sorted.length}; target < ${ON_SCREEN_TARGET_MS} ms: ${p95 < ON_SCREEN_TARGET_MS ? 'met' : 'NOT met'}`);
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** The files index.html loads before anything renders (its scripts, preloads and styles), compressed as a server would. */
function bundleSizes() {
  const dist = join(import.meta.dirname, '..', '..', 'studio', 'dist');
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/studio\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  let raw = 0;
  let gzip = 0;
  let brotli = 0;
  for (const file of files) {
    const bytes = readFileSync(join(dist, file));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
    brotli += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return { files, raw, gzip, brotli };
}

/** The collection through the API, its items straight into the read model, then the indexes' statistics. */
async function seed(base: string, token: string, databaseUrl: string, items: number): Promise<void> {
  const created = await fetch(`${base}/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-svc-site': SITE, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: COLLECTION,
      fields: [
        { field: 'title', type: 'string' },
        { field: 'category', type: 'string' },
        { field: 'views', type: 'integer' },
        { field: 'published_at', type: 'dateTime' },
      ],
    }),
  });
  if (created.status !== 201) throw new Error(`collection: ${created.status} ${await created.text()}`);
  const started = Date.now();
  const owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  try {
    await owner.query(
      `INSERT INTO items (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data)
       SELECT $1, $2, gen_random_uuid()::text, 'published', NULL,
              timestamptz '2024-01-01' + n * interval '1 minute', timestamptz '2024-01-01' + n * interval '1 minute', NULL, NULL, NULL, 1,
              jsonb_build_object('title', 'Article ' || n, 'category', 'c' || (n % 10), 'views', (n * 7919) % 1000,
                                 'published_at', to_char((timestamptz '2020-01-01' + n * interval '97 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM generate_series(1, $3::bigint) AS n`,
      [SITE, COLLECTION, items],
    );
    await owner.query('ANALYZE items');
  } finally {
    await owner.end();
  }
  console.log(`seeded ${items.toLocaleString('en')} items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
