// The config manifest at size: a manifest of 200 collections × 20 fields (one of them the m2o link to
// the previous collection: 199 relations) against the running service (`svc start` as a child
// process on a scratch database of DATABASE_URL's server). Per round, on a fresh site: the dry-run
// of the whole manifest (every change a create), its apply in one transaction, the dry-run again
// (nothing left to do), and the export. Budgets: export < 2 s, dry-run < 3 s, apply < 10 s, each
// measured end to end over HTTP (the manifest's JSON both ways included).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrate } from '../../infra/postgres/migrate.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const usage = `usage: npm run bench -- config [--collections 200] [--fields 20] [--rounds 3]
  --collections  collections in the manifest
  --fields       fields per collection (the first links to the previous collection)
  --rounds       fresh sites measured; the figures are the median and the worst round`;

const BUDGET_MS = { export: 2_000, dryRun: 3_000, apply: 10_000 };
const TYPES = ['string', 'text', 'integer', 'boolean', 'dateTime', 'json', 'float', 'date', 'decimal', 'slug'] as const;

function buildManifest(collections: number, fieldsPerCollection: number): Record<string, unknown> {
  const names = Array.from({ length: collections }, (_, index) => `bench_${String(index).padStart(3, '0')}`);
  const fields = names.flatMap((collection) => [
    { collection, field: 'previous', type: 'uuid' },
    ...Array.from({ length: fieldsPerCollection - 1 }, (_, index) => {
      const type = TYPES[index % TYPES.length]!;
      return {
        collection,
        field: `field_${index}`,
        type,
        required: index === 0,
        note: `Field ${index} of ${collection}`,
        ...(type === 'string' ? { options: { maxLength: 200 }, indexed: index % 20 === 0 } : {}),
      };
    }),
  ]);
  const relations = names.slice(1).map((collection, index) => ({
    id: `link_${collection}`,
    kind: 'm2o',
    collection,
    field: 'previous',
    relatedCollection: names[index],
    onDelete: 'set null',
  }));
  return {
    version: 'svc.config@v1',
    collections: names.map((name) => ({ name, label: name.replace('_', ' '), versioning: false })),
    fields,
    relations,
    webhooks: [],
    settings: [{ key: 'bench.flags', value: { collections } }],
    managedScopes: ['schema'],
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: Math.round(performance.now() - started), value };
}

async function call(base: string, siteId: string, token: string, method: string, path: string, body?: string) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-svc-site': siteId, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2_000)}`);
  return JSON.parse(text) as { data: Record<string, unknown> & { diff?: { changes: unknown[] }; applied?: unknown } };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      collections: { type: 'string', default: '200' },
      fields: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const collections = positiveInteger(values.collections, 'collections', usage);
  const fieldsPerCollection = positiveInteger(values.fields, 'fields', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const manifest = JSON.stringify(buildManifest(collections, fieldsPerCollection));
  console.log(`manifest: ${collections} collections × ${fieldsPerCollection} fields, ${collections - 1} relations, ${(manifest.length / 1e6).toFixed(2)} MB`);

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_config_${Date.now().toString(36)}`);
  await migrate(scratch.url);
  const port = 22_000 + Math.floor(Math.random() * 2_000);
  const child = startBenchService(scratch.url, port);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const results: { dryRun: number; apply: number; dryRunAfter: number; export: number; exportBytes: number; applied: unknown }[] = [];
  try {
    await waitForHealth(base, child);
    for (let round = 1; round <= rounds; round += 1) {
      const siteId = `configbench${round}`;
      const { token } = await prepareSite(base, siteId, false);
      const dryRun = await timed(() => call(base, siteId, token, 'POST', '/config/import?dryRun=true&mode=merge', manifest));
      if (dryRun.value.data.valid !== true) throw new Error(`the dry-run found errors: ${JSON.stringify(dryRun.value.data.errors).slice(0, 2_000)}`);
      const apply = await timed(() => call(base, siteId, token, 'POST', '/config/import?mode=merge', manifest));
      const dryRunAfter = await timed(() => call(base, siteId, token, 'POST', '/config/import?dryRun=true&mode=merge', manifest));
      if (dryRunAfter.value.data.diff!.changes.length !== 0) throw new Error('the dry-run after the apply still has changes');
      const exported = await timed(() => call(base, siteId, token, 'GET', '/config/export?scope=all'));
      const exportBytes = JSON.stringify(exported.value).length;
      results.push({ dryRun: dryRun.ms, apply: apply.ms, dryRunAfter: dryRunAfter.ms, export: exported.ms, exportBytes, applied: apply.value.data.applied });
      console.log(
        `round ${round}: dry-run ${dryRun.ms} ms, apply ${apply.ms} ms ${JSON.stringify(apply.value.data.applied)}, dry-run after ${dryRunAfter.ms} ms, export ${exported.ms} ms (${(exportBytes / 1e6).toFixed(2)} MB)`,
      );
    }
  } finally {
    await stopBenchService(child);
    await scratch.drop();
  }

  const figure = (key: 'dryRun' | 'apply' | 'dryRunAfter' | 'export') => ({ medianMs: median(results.map((r) => r[key])), worstMs: Math.max(...results.map((r) => r[key])) });
  const figures = { export: figure('export'), dryRun: figure('dryRun'), dryRunAfterApply: figure('dryRunAfter'), apply: figure('apply') };
  const verdict = (ms: number, budget: number) => `${ms <= budget ? 'ok' : 'OVER BUDGET'} (budget ${budget / 1000} s)`;
  console.log('\n                    median    worst');
  console.log(`export            ${String(figures.export.medianMs).padStart(6)} ms ${String(figures.export.worstMs).padStart(6)} ms  ${verdict(figures.export.worstMs, BUDGET_MS.export)}`);
  console.log(`dry-run           ${String(figures.dryRun.medianMs).padStart(6)} ms ${String(figures.dryRun.worstMs).padStart(6)} ms  ${verdict(figures.dryRun.worstMs, BUDGET_MS.dryRun)}`);
  console.log(`dry-run (no-op)   ${String(figures.dryRunAfterApply.medianMs).padStart(6)} ms ${String(figures.dryRunAfterApply.worstMs).padStart(6)} ms  ${verdict(figures.dryRunAfterApply.worstMs, BUDGET_MS.dryRun)}`);
  console.log(`apply             ${String(figures.apply.medianMs).padStart(6)} ms ${String(figures.apply.worstMs).padStart(6)} ms  ${verdict(figures.apply.worstMs, BUDGET_MS.apply)}`);

  const report = {
    benchmark: 'config',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    manifest: { collections, fieldsPerCollection, relations: collections - 1, bytes: manifest.length },
    budgetsMs: BUDGET_MS,
    figures,
    rounds: results,
  };
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `config-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
