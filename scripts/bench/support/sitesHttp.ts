// The sites bench's HTTP scenarios (scripts/bench/sites.ts): item reads on the service (a child
// process) with autocannon, each request to the next sampled site with its API key, with the
// service's CPU and memory and the hit rates of its schema and grants caches around each run.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpuMs } from './processCpu.ts';
import { mib, percent, round } from './sitesFormat.ts';
import type { Target } from './sitesSeed.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Seconds of unmeasured load before each scenario's measured run. */
export const WARM_UP_SECONDS = 2;

type CacheLookups = Record<string, { hit: number; miss: number }>;

/** svc_cache_lookups_total of the service's Prometheus text, by cache. */
async function scrapeCacheLookups(metricsUrl: string): Promise<CacheLookups> {
  const text = await (await fetch(metricsUrl)).text();
  const lookups: CacheLookups = {};
  for (const [, labels, value] of text.matchAll(/^svc_cache_lookups_total\{([^}]*)\}\s+(\S+)$/gm)) {
    const cache = /cache="([^"]*)"/.exec(labels!)?.[1];
    const result = /result="([^"]*)"/.exec(labels!)?.[1];
    if (!cache || (result !== 'hit' && result !== 'miss')) continue;
    lookups[cache] ??= { hit: 0, miss: 0 };
    lookups[cache][result] = Number(value);
  }
  return lookups;
}

/** The hit rate of each of the schema and grants caches between two scrapes (null: no lookups). */
function hitRates(before: CacheLookups, after: CacheLookups) {
  const rates: Record<string, { hits: number; misses: number; hitRate: number | null }> = {};
  for (const cache of ['schema', 'grants']) {
    const hits = (after[cache]?.hit ?? 0) - (before[cache]?.hit ?? 0);
    const misses = (after[cache]?.miss ?? 0) - (before[cache]?.miss ?? 0);
    rates[cache] = { hits, misses, hitRate: hits + misses === 0 ? null : round((hits / (hits + misses)) * 100) / 100 };
  }
  return rates;
}

export interface ScenarioFigures {
  scenario: string;
  sites: number;
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  serverCpuMsPerRequest: number | null;
  rssBytes: number;
  caches: ReturnType<typeof hitRates>;
}

interface ScenarioOptions {
  name: string;
  sites: Target[];
  path: (target: Target) => string;
  url: string;
  metricsUrl: string;
  service: ChildProcess;
  duration: number;
  connections: number;
}

/**
 * GETs of `path`, each request to the next site in turn with that site's key: a warm-up, then the
 * measured run, with the caches' lookups scraped around it and the service's RSS after it. Any
 * answer but a 2xx fails the benchmark (a figure of error pages would measure nothing).
 */
export async function measureScenario(options: ScenarioOptions): Promise<ScenarioFigures> {
  const { sites, service } = options;
  let cursor = 0;
  let firstFailure: string | null = null;
  const requests: AutocannonRequest[] = [
    {
      method: 'GET',
      setupRequest: (request) => {
        const target = sites[cursor++ % sites.length]!;
        return { ...request, path: options.path(target), headers: { ...request.headers, authorization: `Bearer ${target.key}`, 'x-svc-site': target.siteId } };
      },
      onResponse: (status, body) => {
        if ((status < 200 || status > 299) && firstFailure === null) firstFailure = `${status} ${body.slice(0, 300)}`;
      },
    },
  ];
  const load = (seconds: number) => autocannon({ url: options.url, connections: options.connections, duration: seconds, requests });
  const fail = (phase: string, result: AutocannonResult) => {
    if (result.non2xx > 0 || result.errors + result.timeouts > 0) {
      throw new Error(`${options.name} (${phase}): ${result.non2xx} non-2xx answers, ${result.errors + result.timeouts} errors; first: ${firstFailure ?? 'none recorded'}`);
    }
  };
  fail('warm-up', await load(WARM_UP_SECONDS));
  const before = await scrapeCacheLookups(options.metricsUrl);
  const cpuBefore = cpuMs(service.pid);
  const result = await load(options.duration);
  const cpuAfter = cpuMs(service.pid);
  const after = await scrapeCacheLookups(options.metricsUrl);
  const figures: ScenarioFigures = {
    scenario: options.name,
    sites: sites.length,
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round((cpuAfter - cpuBefore) / Math.max(1, result.requests.total)),
    rssBytes: rssBytes(service.pid),
    caches: hitRates(before, after),
  };
  console.log(
    `  ${options.name.padEnd(26)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.latencyMs.p50} ms  p99 ${figures.latencyMs.p99} ms  ` +
      `non-2xx ${figures.non2xx}  RSS ${mib(figures.rssBytes)} MiB  schema hits ${percent(figures.caches.schema?.hitRate)}  grants hits ${percent(figures.caches.grants?.hitRate)}  server CPU ${figures.serverCpuMsPerRequest} ms/req`,
  );
  fail('measured', result);
  return figures;
}

export function rssBytes(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}
