// `npm run drill -- soak [--minutes N] [--short] [--no-redis]`: one instance under N minutes (default
// 60) of mixed paced load: item writes and reads, public delivery reads, releases published, flow
// runs, file uploads, realtime sockets (some held for the whole run, one replaced every few seconds)
// and a webhook of the change feed to a local receiver. Samples the instance every few seconds: its
// resident memory and open file descriptors (/proc/<pid>), and from its Prometheus metrics
// (SVC_METRICS) the PostgreSQL pool's waiting requests and the event loop's lag. Reports the RSS and
// descriptor slopes (least squares over the samples after a warm-up, per hour), their ends, and the
// pool waits. Not for CI: a leak shows over an hour, not a minute. It fails only on correctness (a
// 5xx, a lost acknowledged write, a webhook body changed on re-send, an error log line).
import { parseArgs } from 'node:util';
import { call, StatusTally } from './support/http.ts';
import { asAdmin, createCollection, createDrillSite, createMember, createPolicy, publicRoleId } from './support/drillSite.ts';
import { prepareEnvironment } from './support/drillEnvironment.ts';
import { percentile, progress, rounded, runLoad, sleep, slope, UsageError, Verdict, waitFor, type DrillOutcome } from './support/figures.ts';
import { createItemLoad, verifyItems } from './support/itemLoad.ts';
import { createManualFlow, createMixedWrites } from './support/mixedWrites.ts';
import { openRealtimeSocket, type RealtimeSocket } from './support/realtimeSocket.ts';
import { errorsSince, messageSummary, DRILL_INSTANCE_TOKEN } from './support/serviceInstance.ts';
import { startWebhookReceiver, subscribeWebhook, webhookLag } from './support/webhookReceiver.ts';

const usage = `usage: npm run drill -- soak [--minutes N] [--short] [--no-redis]
  --minutes   minutes of load (default 60; fractions allowed)
  --short     one minute (to try the drill, not to judge a leak)
  --no-redis  the instance without Redis (in-process rate limits, realtime and the PostgreSQL job queue)`;

const HELD_SOCKETS = 4;

interface Sample {
  /** Seconds since the load started. */
  at: number;
  rssMb: number | null;
  descriptors: number | null;
  poolWaiting: number | null;
  poolTotal: number | null;
  loopLagMs: number | null;
}

function metric(text: string, name: string, labels = ''): number | null {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}${labels} `) || (labels === '' && entry.startsWith(`${name} `)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

export async function run(args: string[]): Promise<DrillOutcome> {
  const { values } = parseArgs({ args, options: { minutes: { type: 'string' }, short: { type: 'boolean' }, 'no-redis': { type: 'boolean' } } });
  const minutes = values.short ? 1 : Number(values.minutes ?? 60);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new UsageError(usage);
  const everyMs = minutes <= 5 ? 2_000 : 10_000;
  const startedAt = Date.now();
  const verdict = new Verdict();
  const say = progress('soak', startedAt);
  const receiver = await startWebhookReceiver();
  const environment = await prepareEnvironment('soak', { instances: 1, redis: values['no-redis'] !== true, environment: { SVC_METRICS: 'true', SVC_REALTIME_HEARTBEAT_MS: '10000' } });
  const sockets: RealtimeSocket[] = [];
  try {
    const instance = environment.instances[0]!;
    const base = instance.base;
    const site = await createDrillSite(base, 'soak');
    const admin = asAdmin(base, site);
    await createCollection(base, site, 'articles');
    await createPolicy(base, site, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'n'] }], { roleId: await publicRoleId(base, site) });
    const adminRole = (await admin('GET', '/roles')).data.find((role: { systemKey: string | null }) => role.systemKey === 'admin').id as string;
    const writers = await Promise.all([0, 1].map((index) => createMember(base, site, adminRole, `writer${index}`)));
    const mixedSetup = { siteId: site.siteId, token: (await createMember(base, site, adminRole, 'mixed')).token, manualFlowId: await createManualFlow(base, site.siteId, site.adminToken), collection: 'articles' };
    const subscriptionId = await subscribeWebhook(base, site.siteId, site.adminToken, receiver.url);
    for (let index = 0; index < HELD_SOCKETS; index += 1) sockets.push(await openRealtimeSocket(base, 'a', site.siteId, site.adminToken, ['articles']));
    say(`instance up (pid ${instance.pid}); ${minutes} minutes of load, a sample every ${everyMs / 1000} s`);

    const target = { name: instance.name, base };
    const items = createItemLoad(site.siteId, 'articles', { updateShare: 0.6 });
    const mixed = createMixedWrites(mixedSetup);
    const reads = new StatusTally();
    const loadStart = Date.now();
    const loadEnd = loadStart + minutes * 60_000;
    const stop = () => Date.now() >= loadEnd;
    let socketsOpened = HELD_SOCKETS;
    let churned: RealtimeSocket | null = null;
    const samples: Sample[] = [];
    const load = Promise.all([
      runLoad(2, stop, (worker) => items.write(worker, writers[worker]!.token, target), 150),
      runLoad(1, stop, (_, iteration) => mixed.write(iteration, target), 1_000),
      runLoad(2, stop, async (worker, iteration) => {
        const answer =
          (worker + iteration) % 3 === 0
            ? await call(base, 'GET', '/deliver/items/articles?limit=10&sort=-n', { site: site.siteId })
            : await call(base, 'GET', `/items/articles?limit=20&sort=-n&page=${1 + (iteration % 5)}`, { site: site.siteId, token: site.adminToken });
        reads.add(answer.status);
      }, 100),
      // One socket replaced every few seconds: a connection that leaks shows in the descriptors.
      runLoad(1, stop, async () => {
        churned?.close();
        churned = await openRealtimeSocket(base, 'a', site.siteId, site.adminToken, ['articles']);
        socketsOpened += 1;
      }, 3_000),
      runLoad(1, stop, async () => {
        const text = (await call<string>(base, 'GET', '/metrics', { token: DRILL_INSTANCE_TOKEN })).body;
        const metrics = typeof text === 'string' ? text : '';
        const lag = metric(metrics, 'nodejs_eventloop_lag_p99_seconds');
        samples.push({
          at: (Date.now() - loadStart) / 1000,
          rssMb: instance.rssMb(),
          descriptors: instance.openDescriptors(),
          poolWaiting: metric(metrics, 'svc_db_pool_connections', '{state="waiting"}'),
          poolTotal: metric(metrics, 'svc_db_pool_connections', '{state="total"}'),
          loopLagMs: lag === null ? null : lag * 1000,
        });
        if (samples.length % Math.max(1, Math.round(60_000 / everyMs)) === 0) {
          const last = samples.at(-1)!;
          say(`${Math.round(last.at / 60)} min: rss ${rounded(last.rssMb, 1)} MB, ${last.descriptors} descriptors, pool ${last.poolTotal} (waiting ${last.poolWaiting})`);
        }
      }, everyMs),
    ]);
    await load;
    (churned as RealtimeSocket | null)?.close();
    say('load done; settling');

    const delivered = await waitFor(async () => (await webhookLag(base, site.siteId, site.adminToken, subscriptionId)).events === 0, 60_000, 500);
    await sleep(1_000);
    const written = await verifyItems(base, site.siteId, site.adminToken, 'articles', items.items);
    verdict.expect(written.lost.length === 0, `acknowledged writes lost: ${written.lost.slice(0, 5).join('; ')}`);
    const serverErrors = items.tally.total((status) => status >= 500 || status === 0) + mixed.tally.total((status) => status >= 500 || status === 0) + reads.total((status) => status >= 500 || status === 0);
    verdict.expect(serverErrors === 0, `${serverErrors} 5xx or unanswered requests (items ${items.tally.format()}, mixed ${mixed.tally.format()}, reads ${reads.format()})`);
    verdict.expect(delivered !== null, 'the webhook did not reach the end of the feed within 60 s of the load');
    verdict.expect(receiver.conflicting().length === 0, `webhook deliveries sent twice with different bodies: ${receiver.conflicting().length}`);
    const lines = errorsSince([instance], loadStart);
    verdict.expect(lines.length === 0, `error log lines: ${messageSummary(lines)}`);

    // Slopes over the samples after a warm-up (a tenth of the run, at least 10 s): caches and pools fill first.
    const warmUp = Math.max(10, (minutes * 60) / 10);
    const steady = samples.filter((sample) => sample.at >= warmUp);
    const perHour = (pick: (sample: Sample) => number | null) => {
      const perSecond = slope(steady.filter((sample) => pick(sample) !== null).map((sample) => ({ x: sample.at, y: pick(sample)! })));
      return perSecond === null ? null : perSecond * 3600;
    };
    const waiting = samples.map((sample) => sample.poolWaiting ?? 0);
    const lags = samples.map((sample) => sample.loopLagMs).filter((lag): lag is number => lag !== null);
    const first = steady[0] ?? samples[0];
    const last = samples.at(-1);
    return verdict.outcome('soak', startedAt, {
      minutes,
      samples: samples.length,
      rss_start_mb: rounded(first?.rssMb ?? null, 1),
      rss_end_mb: rounded(last?.rssMb ?? null, 1),
      rss_max_mb: rounded(Math.max(...samples.map((sample) => sample.rssMb ?? 0)), 1),
      rss_slope_mb_per_h: rounded(perHour((sample) => sample.rssMb), 1),
      fds_start: first?.descriptors ?? null,
      fds_end: last?.descriptors ?? null,
      fds_max: Math.max(...samples.map((sample) => sample.descriptors ?? 0)),
      fds_slope_per_h: rounded(perHour((sample) => sample.descriptors), 1),
      pool_waiting_max: Math.max(0, ...waiting),
      pool_waiting_samples: waiting.filter((count) => count > 0).length,
      pool_waiting_mean: rounded(waiting.reduce((sum, count) => sum + count, 0) / Math.max(1, waiting.length), 2),
      loop_lag_p99_max_ms: rounded(lags.length > 0 ? Math.max(...lags) : null, 1),
      loop_lag_p99_median_ms: rounded(percentile(lags, 50), 1),
      writes_acked: items.items.length,
      item_writes: items.tally.format(),
      mixed_writes: mixed.tally.format(),
      reads: reads.format(),
      sockets_opened: socketsOpened,
      frames: sockets.reduce((sum, socket) => sum + socket.events.length, 0),
      webhook_received: receiver.received(),
      lost: written.lost.length,
      error_lines: lines.length,
    });
  } finally {
    for (const socket of sockets) socket.close();
    await environment.close();
    await receiver.close();
  }
}
