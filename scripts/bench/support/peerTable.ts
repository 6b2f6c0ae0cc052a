// The side-by-side table of `npm run bench -- peer`: each system's median over the rounds per
// scenario, and ours over Directus with each credential, round by round; ours' read one against the
// bare Fastify hello-world of the same sitting; the async projections' freshness during the update.
import { readFileSync } from 'node:fs';
import { freshnessSection, type SuiteFreshness } from './projectionFreshness.ts';

export interface SuiteResult {
  /** `directus`, `ours-<credential>` or `hello-world`. */
  system: string;
  round: number;
  file: string;
  /** Ours' suites: the async projections' freshness during scenario e, when measured. */
  freshness?: SuiteFreshness;
}

export const HELLO_SYSTEM = 'hello-world';

interface BenchRun {
  scenario: string;
  rps_mean: number;
  lat_ms: { p99: number };
  non2xx: number;
  errors: number;
  server: { peakRSS_MiB: number | null; cpu_pct: number | null };
  db_cpu_pct: number | null;
}

const SCENARIOS: Record<string, string> = {
  b: 'b. read one',
  c: 'c. filtered, sorted list 25',
  d: 'd. list 25 with author.name',
  a: 'a. create',
  e: 'e. update',
  h: 'h. bare Fastify hello-world',
};

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function runsOf(suites: SuiteResult[], system: string, scenario: string): BenchRun[] {
  return suites
    .filter((suite) => suite.system === system)
    .sort((x, y) => x.round - y.round)
    .map((suite) => (JSON.parse(readFileSync(suite.file, 'utf8')) as { runs: BenchRun[] }).runs.find((run) => run.scenario === scenario))
    .filter((run): run is BenchRun => run !== undefined);
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en')} MB`;
const rate = (value: number) => Math.round(value).toLocaleString('en');

export function ratioTable(suites: SuiteResult[], credentials: string[], storage: { seedBytes: number; articles: number; directusBytes?: number }): string {
  const withDirectus = suites.some((suite) => suite.system === 'directus');
  const scenarios = Object.keys(SCENARIOS).filter((scenario) => runsOf(suites, `ours-${credentials[0]}`, scenario).length > 0);
  const lines = [`# Ours against Directus (${new Date().toISOString()}, ${Math.max(...suites.map((suite) => suite.round))} alternated rounds)`, ''];
  const header = ['scenario', ...(withDirectus ? ['Directus req/s'] : []), ...credentials.flatMap((credential) => [`ours ${credential} req/s`, ...(withDirectus ? [`ratio (${credential})`, 'per round'] : [])])];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  for (const scenario of scenarios) {
    const directus = runsOf(suites, 'directus', scenario);
    const directusMedian = directus.length ? median(directus.map((run) => run.rps_mean)) : 0;
    const cells = [SCENARIOS[scenario]!, ...(withDirectus ? [rate(directusMedian)] : [])];
    for (const credential of credentials) {
      const ours = runsOf(suites, `ours-${credential}`, scenario);
      const oursMedian = median(ours.map((run) => run.rps_mean));
      cells.push(`${rate(oursMedian)} (${ours.map((run) => rate(run.rps_mean)).join(' / ')})`);
      if (withDirectus) {
        const perRound = ours.map((run, i) => (directus[i] ? `${(run.rps_mean / directus[i]!.rps_mean).toFixed(1)}×` : '–'));
        cells.push(`**${(oursMedian / directusMedian).toFixed(1)}×**`, perRound.join(', '));
      }
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  const hello = runsOf(suites, HELLO_SYSTEM, 'h');
  if (hello.length) lines.push(...helloLines(suites, credentials, hello));
  lines.push('', '| system | scenario | p99 ms | non-2xx + errors | peak RSS MiB | server CPU ms/req | DB CPU ms/req |', '|---|---|---:|---:|---:|---:|---:|');
  for (const system of [...(withDirectus ? ['directus'] : []), ...credentials.map((credential) => `ours-${credential}`), ...(hello.length ? [HELLO_SYSTEM] : [])]) {
    for (const scenario of system === HELLO_SYSTEM ? ['h'] : scenarios) {
      const runs = runsOf(suites, system, scenario);
      if (!runs.length) continue;
      const perRequest = (percent: (run: BenchRun) => number | null) =>
        runs.every((run) => percent(run) === null) ? '–' : median(runs.map((run) => (10 * (percent(run) ?? 0)) / run.rps_mean)).toFixed(2);
      lines.push(
        `| ${system} | ${scenario} | ${median(runs.map((run) => run.lat_ms.p99))} | ${runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0)} | ${Math.max(...runs.map((run) => run.server.peakRSS_MiB ?? 0))} | ${perRequest((run) => run.server.cpu_pct)} | ${perRequest((run) => run.db_cpu_pct)} |`,
      );
    }
  }
  const measured = suites.flatMap((suite) => (suite.freshness ? [{ credential: suite.system.replace(/^ours-/, ''), round: suite.round, freshness: suite.freshness }] : []));
  lines.push(...freshnessSection(measured, credentials));
  lines.push('', `Storage after the seed (${storage.articles.toLocaleString('en')} articles): ours ${megabytes(storage.seedBytes)}` +
    (storage.directusBytes ? `, Directus ${megabytes(storage.directusBytes)} (${(storage.seedBytes / storage.directusBytes).toFixed(2)}×)` : ''), '');
  return lines.join('\n');
}

/** The hello-world's req/s, and ours' read one with each credential as a share of it, round by round. */
function helloLines(suites: SuiteResult[], credentials: string[], hello: BenchRun[]): string[] {
  const helloMedian = median(hello.map((run) => run.rps_mean));
  const lines = [
    '',
    `Bare Fastify hello-world (scripts/bench/support/helloWorld.ts on ours' Node, scenario h at the same connections, duration and warm-up, after ours each round): ` +
      `**${rate(helloMedian)} req/s** (${hello.map((run) => rate(run.rps_mean)).join(' / ')})`,
  ];
  if (!runsOf(suites, `ours-${credentials[0]}`, 'b').length) return lines;
  lines.push('', '| ours | req/s | % of the hello-world (target ≥ 50 %) | per round |', '|---|---:|---:|---|');
  const percent = (value: number, of: number) => `${Math.round((100 * value) / of)} %`;
  for (const credential of credentials) {
    const ours = runsOf(suites, `ours-${credential}`, 'b');
    const oursMedian = median(ours.map((run) => run.rps_mean));
    const perRound = ours.map((run, i) => (hello[i] ? percent(run.rps_mean, hello[i]!.rps_mean) : '–'));
    lines.push(`| read one with ${credential} | ${rate(oursMedian)} | **${percent(oursMedian, helloMedian)}** | ${perRound.join(', ')} |`);
  }
  return lines;
}
