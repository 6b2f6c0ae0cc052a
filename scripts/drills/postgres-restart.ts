// `npm run drill -- postgres-restart [--short] [--down N]`: one instance on a PostgreSQL cluster of the
// drill's own (never the machine's), under paced load of item writes and reads, the health check and
// public delivery; PostgreSQL is stopped mid-load (a fast shutdown: sessions cut) and started again
// after `--down` seconds. Proves:
// - while the database is away every failing answer is 503 SERVICE_UNAVAILABLE with Retry-After
//   (never a 500, never a hang past the pool's 5 s connection timeout, never a dropped connection);
// - the service recovers by itself (the same process, no restart): every kind of request succeeds
//   again, and from then on nothing fails;
// - every write acknowledged before, during or after the outage is readable at the end.
// The figures count the answers by status in each phase (before, down, after).
import { parseArgs } from 'node:util';
import { call, StatusTally, type Answer } from './support/http.ts';
import { asAdmin, createCollection, createDrillSite, createPolicy, publicRoleId } from './support/drillSite.ts';
import { prepareEnvironment } from './support/drillEnvironment.ts';
import { percentile, progress, rounded, runLoad, sleep, UsageError, Verdict, waitFor, type DrillOutcome } from './support/figures.ts';
import { createItemLoad, verifyItems } from './support/itemLoad.ts';
import { errorsSince, messageSummary } from './support/serviceInstance.ts';

const usage = `usage: npm run drill -- postgres-restart [--short] [--down N] [--seconds N]
  --short    the CI form: 5 s of load before the stop, 5 s down, 5 s after recovery
  --down     seconds PostgreSQL stays down (default 20; 5 with --short)
  --seconds  seconds of load before the stop and after recovery (default 30; 5 with --short)`;

/** The slowest a request may answer while PostgreSQL is away: the pool's 5 s connection timeout, plus slack. */
const OUTAGE_ANSWER_BOUND_MS = 8_000;

type Phase = 'before' | 'down' | 'after';

interface Observation {
  phase: Phase;
  kind: string;
  answer: Answer;
  /** When the request was sent (ms since the epoch). */
  at: number;
}

export async function run(args: string[]): Promise<DrillOutcome> {
  const { values } = parseArgs({ args, options: { short: { type: 'boolean' }, down: { type: 'string' }, seconds: { type: 'string' } } });
  const short = values.short === true;
  const down = Number(values.down ?? (short ? 5 : 20));
  const seconds = Number(values.seconds ?? (short ? 5 : 30));
  if (!Number.isInteger(down) || down < 1 || !Number.isInteger(seconds) || seconds < 1) throw new UsageError(usage);
  const startedAt = Date.now();
  const verdict = new Verdict();
  const say = progress('postgres-restart', startedAt);
  const environment = await prepareEnvironment('postgres-restart', { instances: 1, redis: false, ownCluster: true });
  try {
    const { database } = environment;
    const instance = environment.instances[0]!;
    const server = database.server!;
    say(`instance up on a PostgreSQL cluster of its own (pid ${instance.pid})`);
    const site = await createDrillSite(instance.base, 'pgr');
    await createCollection(instance.base, site, 'articles');
    await createPolicy(instance.base, site, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'n'] }], { roleId: await publicRoleId(instance.base, site) });
    await asAdmin(instance.base, site)('POST', '/items/articles', { title: 'public', n: 0 });
    const pid = instance.pid;

    let phase: Phase = 'before';
    const observations: Observation[] = [];
    const load = createItemLoad(site.siteId, 'articles');
    const target = { name: instance.name, base: instance.base };
    let stopped = false;
    const observe = async (kind: string, request: () => Promise<Answer>) => {
      const at = Date.now();
      const current = phase;
      observations.push({ phase: current, kind, answer: await request(), at });
    };
    const reads = [
      () => call(instance.base, 'GET', '/items/articles?limit=10&sort=-n', { site: site.siteId, token: site.adminToken }),
      () => call(instance.base, 'GET', '/roles', { site: site.siteId, token: site.adminToken }),
      () => call(instance.base, 'GET', '/deliver/items/articles?limit=5', { site: site.siteId }),
      () => call(instance.base, 'GET', '/utils/health'),
    ];
    const kinds = ['items.list', 'roles', 'deliver', 'health'];
    const running = Promise.all([
      runLoad(2, () => stopped, (worker) => observe('write', () => load.write(worker, site.adminToken, target)), 100),
      runLoad(2, () => stopped, (worker, iteration) => observe(kinds[(worker + iteration) % kinds.length]!, reads[(worker + iteration) % reads.length]!), 80),
    ]);

    await sleep(seconds * 1000);
    say('stopping PostgreSQL');
    phase = 'down';
    const stoppedAt = Date.now();
    await server.stop();
    await sleep(down * 1000);
    say(`starting PostgreSQL after ${Math.round((Date.now() - stoppedAt) / 1000)} s`);
    await server.start();
    const backAt = Date.now();
    // Recovered: every kind of request succeeds again (the writes too).
    const recoveredMs = await waitFor(() => {
      const since = observations.filter((observation) => observation.at > backAt);
      return ['write', ...kinds].every((kind) => since.some((observation) => observation.kind === kind && observation.answer.status < 300));
    }, 60_000, 100);
    phase = 'after';
    const recoveredAt = Date.now();
    say(`recovered ${recoveredMs ?? '> 60000'} ms after PostgreSQL came back`);
    await sleep(seconds * 1000);
    stopped = true;
    await running;

    const byPhase = (which: Phase) => {
      const tally = new StatusTally();
      for (const observation of observations) if (observation.phase === which) tally.add(observation.answer.status);
      return tally;
    };
    const downObservations = observations.filter((observation) => observation.phase === 'down');
    const failures = downObservations.filter((observation) => observation.answer.status >= 500 || observation.answer.status === 0);
    const not503 = failures.filter((observation) => observation.answer.status !== 503);
    const unnamed = failures.filter(
      (observation) => observation.answer.status === 503 && (observation.kind !== 'health' && (observation.answer.body?.errors?.[0]?.code !== 'SERVICE_UNAVAILABLE' || !observation.answer.headers.get('retry-after'))),
    );
    const slowest = Math.max(0, ...downObservations.map((observation) => observation.answer.ms));
    const afterFailures = observations.filter((observation) => observation.at >= recoveredAt && (observation.answer.status >= 500 || observation.answer.status === 0));
    verdict.expect(not503.length === 0, `while PostgreSQL was away: ${not503.length} answers other than 503 (${[...new Set(not503.map((o) => `${o.kind}:${o.answer.status}${o.answer.failure ? `/${o.answer.failure}` : ''}`))].join(', ')})`);
    verdict.expect(unnamed.length === 0, `${unnamed.length} 503 answers without SERVICE_UNAVAILABLE and Retry-After`);
    verdict.expect(failures.length > 0, 'no request failed while PostgreSQL was away: the outage was not observed');
    verdict.expect(slowest <= OUTAGE_ANSWER_BOUND_MS, `the slowest answer while PostgreSQL was away took ${Math.round(slowest)} ms (bound ${OUTAGE_ANSWER_BOUND_MS})`);
    verdict.expect(recoveredMs !== null, 'the service did not serve every kind of request within 60 s of PostgreSQL coming back');
    verdict.expect(afterFailures.length === 0, `${afterFailures.length} failures after recovery (${[...new Set(afterFailures.map((o) => `${o.kind}:${o.answer.status}`))].join(', ')})`);
    verdict.expect(instance.pid === pid && instance.running, 'the service process did not survive the outage');
    verdict.expect(byPhase('before').total((status) => status >= 500 || status === 0) === 0, 'failures before the outage');
    const written = await verifyItems(instance.base, site.siteId, site.adminToken, 'articles', load.items);
    verdict.expect(written.lost.length === 0, `acknowledged writes lost: ${written.lost.slice(0, 5).join('; ')}`);
    const lines = errorsSince([instance], recoveredAt + 5_000);
    verdict.expect(lines.length === 0, `error log lines well after recovery: ${messageSummary(lines)}`);

    return verdict.outcome('postgres-restart', startedAt, {
      down_s: rounded((backAt - stoppedAt) / 1000, 1),
      recovered_ms: recoveredMs,
      before: byPhase('before').format(),
      down: byPhase('down').format(),
      after: byPhase('after').format(),
      fivexx_down: byPhase('down').format((status) => status >= 500),
      not_503: not503.length,
      down_p50_ms: rounded(percentile(downObservations.map((o) => o.answer.ms), 50)),
      down_max_ms: rounded(slowest),
      writes_acked: load.items.length,
      lost: written.lost.length,
      same_pid: instance.pid === pid ? 'yes' : 'no',
      outage_log_lines: errorsSince([instance], stoppedAt).length - lines.length,
    });
  } finally {
    await environment.close();
  }
}
