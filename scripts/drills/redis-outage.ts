// `npm run drill -- redis-outage [--short] [--down N] [--seconds N]`: two instances on one database
// and a redis-server of the drill's own, instance a with the default fail-open rate limits and
// instance b with SVC_RATE_LIMIT_FAIL_CLOSED=true, under paced load (item writes and reads, which are
// rate-limited; role reads, which are not; manual flow runs, which go through the job queue), a
// realtime socket on each instance, an event flow on every article created and a webhook of the
// change feed. Redis is killed (SIGKILL) mid-load and started again. Proves what docs/security.md
// ("Availability under outages") says:
// - rate limits fail open on a (no 503, no 500) and closed on b (503 RATE_LIMIT_UNAVAILABLE on the
//   limited routes only; the others still answer);
// - realtime falls back to local fan-out: the socket on the instance that tails the log still gets
//   every create, whichever instance took it; once Redis is back both sockets get every create;
// - a flow run requested while Redis is down is answered 202 queued (it is in the log; its job is
//   owed and given when Redis returns: JobQueue.enqueueRecorded), and the queue resumes when Redis
//   returns: every accepted run finishes, the event flow ran once per acknowledged create, the
//   webhook delivers every acknowledged create;
// - health is 200 `degraded` (cache and queue down) during the outage and `ok` after;
// - every acknowledged write is readable at the end.
import { parseArgs } from 'node:util';
import { call, StatusTally, type Answer } from './support/http.ts';
import { asAdmin, createCollection, createDrillSite, createMember } from './support/drillSite.ts';
import { prepareEnvironment } from './support/drillEnvironment.ts';
import { progress, runLoad, sleep, UsageError, Verdict, waitFor, type DrillOutcome } from './support/figures.ts';
import { createItemLoad, verifyItems } from './support/itemLoad.ts';
import { leaderLockNames, leaders } from './support/leadership.ts';
import { createManualFlow, logFlow } from './support/mixedWrites.ts';
import { frameCoverage, openRealtimeSocket } from './support/realtimeSocket.ts';
import { errorsSince, messageSummary } from './support/serviceInstance.ts';
import { startWebhookReceiver, subscribeWebhook, webhookLag } from './support/webhookReceiver.ts';

const usage = `usage: npm run drill -- redis-outage [--short] [--down N] [--seconds N] [--lose-data]
  --short      the CI form: 5 s of load before the kill, 8 s down, 10 s after
  --down       seconds Redis stays down (default 30; 8 with --short)
  --seconds    seconds of load before the kill and after Redis returns (default 30; 5 and 10 with --short)
  --lose-data  Redis comes back empty (no append-only file): queued jobs are lost, and the drill
               waits for the flows' lost-run recovery (runs queued over 150 s ago are queued again)`;

/** How long queued flow runs may take to finish after the load: a lost job is queued again after 150 s. */
const RUNS_SETTLE_MS = { kept: 60_000, lost: 240_000 };

/** How long after Redis returns the instances may take to reconnect and subscribe again. */
const RECONNECT_GRACE_MS = 5_000;

type Phase = 'before' | 'down' | 'after';
interface Observation {
  instance: string;
  phase: Phase;
  kind: 'write' | 'read' | 'roles' | 'run';
  answer: Answer;
  at: number;
}

export async function run(args: string[]): Promise<DrillOutcome> {
  const { values } = parseArgs({ args, options: { short: { type: 'boolean' }, down: { type: 'string' }, seconds: { type: 'string' }, 'lose-data': { type: 'boolean' } } });
  const loseData = values['lose-data'] === true;
  const short = values.short === true;
  const down = Number(values.down ?? (short ? 8 : 30));
  const before = Number(values.seconds ?? (short ? 5 : 30));
  const after = Number(values.seconds ?? (short ? 10 : 30));
  if (![down, before, after].every((value) => Number.isInteger(value) && value >= 1)) throw new UsageError(usage);
  const startedAt = Date.now();
  const verdict = new Verdict();
  const say = progress('redis-outage', startedAt);
  const receiver = await startWebhookReceiver();
  const environment = await prepareEnvironment('redis-outage', {
    instances: 2,
    redis: true,
    persistentRedis: !loseData,
    environment: (index) => ({ SVC_RATE_LIMIT_FAIL_CLOSED: index === 1 ? 'true' : 'false', SVC_WEBHOOK_SWEEP_MS: '1000', SVC_REALTIME_HEARTBEAT_MS: '5000' }),
  });
  try {
    const { instances, database } = environment;
    const redis = environment.redis!;
    const [open, closed] = instances as [(typeof instances)[0], (typeof instances)[0]];
    say('instance a (fail-open) and b (fail-closed) up');
    const site = await createDrillSite(open.base, 'redis');
    const admin = asAdmin(open.base, site);
    await createCollection(open.base, site, 'articles');
    const adminRole = (await admin('GET', '/roles')).data.find((role: { systemKey: string | null }) => role.systemKey === 'admin').id as string;
    const writers = await Promise.all(instances.map((instance) => createMember(open.base, site, adminRole, `writer-${instance.name}`)));
    const eventFlowId = (await admin('POST', '/flows', logFlow('drill on create', 'event', 'articles'))).data.id as string;
    const manualFlowId = await createManualFlow(open.base, site.siteId, site.adminToken);
    const subscriptionId = await subscribeWebhook(open.base, site.siteId, site.adminToken, receiver.url);
    const sockets = await Promise.all(instances.map((instance) => openRealtimeSocket(instance.base, instance.name, site.siteId, site.adminToken, ['articles'])));

    let phase: Phase = 'before';
    let stopped = false;
    const observations: Observation[] = [];
    const load = createItemLoad(site.siteId, 'articles');
    const runIds: string[] = [];
    const observe = async (instance: string, kind: Observation['kind'], request: () => Promise<Answer>) => {
      const at = Date.now();
      const current = phase;
      const answer = await request();
      observations.push({ instance, phase: current, kind, answer, at });
      return answer;
    };
    const running = Promise.all(
      instances.flatMap((instance, index) => {
        const target = { name: instance.name, base: instance.base };
        const options = { site: site.siteId, token: site.adminToken };
        return [
          runLoad(1, () => stopped, () => observe(instance.name, 'write', () => load.write(index, writers[index]!.token, target)), 100),
          runLoad(1, () => stopped, (_, iteration) =>
            iteration % 2 === 0
              ? observe(instance.name, 'read', () => call(instance.base, 'GET', '/items/articles?limit=10', options))
              : observe(instance.name, 'roles', () => call(instance.base, 'GET', '/roles', options)), 100),
          runLoad(1, () => stopped, async () => {
            const answer = await observe(instance.name, 'run', () => call(instance.base, 'POST', `/flows/${manualFlowId}/run`, { ...options, body: {} }));
            if (answer.status === 202) runIds.push(answer.body.data.runId);
          }, 500),
        ];
      }),
    );

    await sleep(before * 1000);
    say('killing Redis');
    phase = 'down';
    await redis.kill();
    const killedAt = Date.now();
    await sleep(1_000);
    const healthDown = await Promise.all(instances.map((instance) => call(instance.base, 'GET', '/utils/health')));
    const tailer = (await leaders(database.owner, leaderLockNames(true))).get('realtime-tailer') ?? null;
    await sleep(Math.max(0, down * 1000 - (Date.now() - killedAt)));
    say('starting Redis again');
    // The outage, as the drill judges it, ends when the restart begins: Redis may answer before start() resolves.
    const restartAt = Date.now();
    await redis.start();
    const backAt = Date.now();
    phase = 'after';
    const healthBack = await waitFor(async () => (await Promise.all(instances.map((instance) => call(instance.base, 'GET', '/utils/health')))).every((answer) => answer.body?.data?.status === 'ok'), 30_000, 250);
    await sleep(after * 1000);
    stopped = true;
    await running;
    say('load done; waiting for the queue to drain');

    // The queue resumed. Runs that had a job (accepted manual runs; event runs of creates made once
    // Redis was back) finish; runs whose job could not be added wait for the flows' dispatcher, which
    // gives a job to runs queued over 150 s ago: the full form waits for it, the short one counts them.
    type RunRow = { id: string; flow_id: string; trigger: string; status: string; started: Date; item_id: string | null };
    const runRows = async () =>
      (await database.owner.query<RunRow>(`SELECT id, flow_id, trigger, status, started_at AS started, input->>'itemId' AS item_id FROM flow_runs WHERE site_id = $1`, [site.siteId])).rows;
    const unfinished = (row: RunRow) => row.status === 'queued' || row.status === 'running';
    const accepted = new Set(runIds);
    const createdAfterBack = new Set(load.items.filter((item) => item.sentAt > backAt + RECONNECT_GRACE_MS).map((item) => item.id));
    const mustFinish = (row: RunRow) => accepted.has(row.id) || (row.item_id !== null && createdAfterBack.has(row.item_id));
    const settleMs = loseData ? RUNS_SETTLE_MS.lost : short ? RUNS_SETTLE_MS.kept : RUNS_SETTLE_MS.lost;
    const runsDone = await waitFor(async () => (await runRows()).filter((row) => (short ? mustFinish(row) : true) && unfinished(row)).length === 0, settleMs, 500);
    const delivered = await waitFor(async () => (await webhookLag(open.base, site.siteId, site.adminToken, subscriptionId)).events === 0, 60_000, 500);
    const allRuns = await runRows();
    const runsByItem = new Map<string, number>();
    for (const row of allRuns) if (row.flow_id === eventFlowId && row.item_id) runsByItem.set(row.item_id, (runsByItem.get(row.item_id) ?? 0) + 1);
    const withoutRun = load.items.filter((item) => runsByItem.get(item.id) !== 1).length;
    const undelivered = load.items.filter((item) => !receiver.itemIds('items.create').has(item.id)).length;
    const stuck = allRuns.filter((row) => (short ? mustFinish(row) : true) && unfinished(row));
    const awaitingDispatch = allRuns.filter((row) => unfinished(row) && !mustFinish(row)).length;
    // A manual run answered 503 must not have been recorded: a client that retries would get two.
    const refusedButRecorded = allRuns.filter((row) => row.flow_id === manualFlowId && !accepted.has(row.id));
    verdict.expect(runsDone !== null, `${stuck.length} flow runs that had a job still queued or running ${settleMs / 1000} s after the load (${stuck.map((row) => `${row.trigger}/${row.status}`).slice(0, 5).join(', ')})`);
    verdict.expect(
      refusedButRecorded.length === 0,
      `${refusedButRecorded.length} manual flow runs answered 503 (dependency queue) were recorded anyway (status ${[...new Set(refusedButRecorded.map((row) => row.status))].join(', ')}): ` +
        'the flows dispatcher will run them about 150 s later, and a client that retried runs the flow twice',
    );
    verdict.expect(withoutRun === 0, `${withoutRun} acknowledged creates do not have exactly one run of the event flow`);
    verdict.expect(delivered !== null && undelivered === 0, `${undelivered} acknowledged creates never reached the webhook (lag at the end: ${(await webhookLag(open.base, site.siteId, site.adminToken, subscriptionId)).events})`);
    verdict.expect(receiver.conflicting().length === 0, `webhook deliveries sent twice with different bodies: ${receiver.conflicting().length}`);

    // Rate limits: open on a, closed on b, while Redis was down (a second of grace for the clients to notice).
    const during = (instance: string, kinds: Observation['kind'][]) =>
      observations.filter((o) => o.instance === instance && o.phase === 'down' && o.at > killedAt + 1_000 && o.at + o.answer.ms < restartAt && kinds.includes(o.kind));
    const openLimited = during(open.name, ['write', 'read']);
    const closedLimited = during(closed.name, ['write', 'read']);
    const closedOther = during(closed.name, ['roles']);
    const openRefused = openLimited.filter((o) => o.answer.status >= 500);
    const closedPassed = closedLimited.filter((o) => !(o.answer.status === 503 && o.answer.body?.errors?.[0]?.code === 'RATE_LIMIT_UNAVAILABLE'));
    verdict.expect(openLimited.length > 0 && openRefused.length === 0, `fail-open instance: ${openRefused.length} of ${openLimited.length} rate-limited requests failed during the outage`);
    verdict.expect(closedLimited.length > 0 && closedPassed.length === 0, `fail-closed instance: ${closedPassed.length} of ${closedLimited.length} rate-limited requests were not 503 RATE_LIMIT_UNAVAILABLE`);
    verdict.expect(closedOther.length > 0 && closedOther.every((o) => o.answer.status === 200), 'fail-closed instance: routes without a rate limit failed during the outage');
    const runsDuring = observations.filter((o) => o.kind === 'run' && o.at > killedAt + 1_000 && o.at < restartAt && o.at + o.answer.ms < restartAt);
    const runsNotQueued = runsDuring.filter((o) => o.answer.status !== 202);
    verdict.expect(
      runsDuring.length > 0 && runsNotQueued.length === 0,
      `flow runs requested during the outage not answered 202 queued (${runsDuring.length} requested): ${runsNotQueued.map((o) => `${o.instance}:${o.answer.status} sent ${o.at - killedAt} ms after the kill, answered in ${Math.round(o.answer.ms)} ms`).join('; ')}`,
    );
    const failuresAfter = observations.filter((o) => o.at > backAt + RECONNECT_GRACE_MS && (o.answer.status >= 500 || o.answer.status === 0));
    verdict.expect(failuresAfter.length === 0, `${failuresAfter.length} failures after Redis returned (${[...new Set(failuresAfter.map((o) => `${o.instance}/${o.kind}:${o.answer.status}`))].join(', ')})`);
    const serverErrors = observations.filter((o) => o.answer.status === 500 || o.answer.status === 0);
    verdict.expect(serverErrors.length === 0, `${serverErrors.length} answers 500 or none at all`);

    // Realtime: the tailing instance's socket got every create sent while Redis was down; both got those after it returned.
    const creates = load.items.map((item) => ({ id: item.id, sentAt: item.sentAt, ackedAt: item.ackedAt }));
    const inOutage = creates.filter((create) => create.sentAt > killedAt + 1_000 && create.ackedAt < restartAt);
    const afterBack = creates.filter((create) => create.sentAt > backAt + RECONNECT_GRACE_MS);
    await waitFor(() => sockets.every((socket) => frameCoverage(socket, afterBack).missing.length === 0), 10_000, 200);
    const tailerSocket = sockets.find((socket) => socket.instance === tailer);
    const outageCoverage = sockets.map((socket) => ({ socket, ...frameCoverage(socket, inOutage) }));
    verdict.expect(tailerSocket !== undefined, 'no instance held the realtime tailer lock during the outage');
    if (tailerSocket) {
      const missing = frameCoverage(tailerSocket, inOutage).missing.length;
      verdict.expect(missing === 0, `the socket on the tailing instance ${tailer} missed ${missing} of ${inOutage.length} creates made during the outage (local fan-out)`);
    }
    for (const socket of sockets) {
      const missing = frameCoverage(socket, afterBack).missing.length;
      verdict.expect(missing === 0, `the socket on ${socket.instance} missed ${missing} of ${afterBack.length} creates made after Redis returned`);
    }

    verdict.expect(healthDown.every((answer) => answer.status === 200 && answer.body?.data?.status === 'degraded'), `health during the outage: ${healthDown.map((answer) => `${answer.status}/${answer.body?.data?.status}`).join(', ')} (want 200 degraded)`);
    verdict.expect(healthBack !== null, 'health did not come back to ok within 30 s of Redis returning');
    const written = await verifyItems(open.base, site.siteId, site.adminToken, 'articles', load.items);
    verdict.expect(written.lost.length === 0, `acknowledged writes lost: ${written.lost.slice(0, 5).join('; ')}`);
    const lines = errorsSince(instances, backAt + RECONNECT_GRACE_MS);
    verdict.expect(lines.length === 0, `error log lines after Redis returned: ${messageSummary(lines)}`);

    const tally = (which: (o: Observation) => boolean) => {
      const counts = new StatusTally();
      for (const observation of observations) if (which(observation)) counts.add(observation.answer.status);
      return counts.format();
    };
    return verdict.outcome('redis-outage', startedAt, {
      down_s: Math.round((restartAt - killedAt) / 1000),
      open_limited_down: tally((o) => o.instance === open.name && o.phase === 'down' && (o.kind === 'write' || o.kind === 'read')),
      closed_limited_down: tally((o) => o.instance === closed.name && o.phase === 'down' && (o.kind === 'write' || o.kind === 'read')),
      closed_unlimited_down: tally((o) => o.instance === closed.name && o.phase === 'down' && o.kind === 'roles'),
      runs_down: tally((o) => o.kind === 'run' && o.phase === 'down'),
      runs_accepted: runIds.length,
      runs_refused_but_recorded: refusedButRecorded.length,
      runs_awaiting_dispatch: awaitingDispatch,
      tailer,
      frames_outage_tailer_missing: tailerSocket ? frameCoverage(tailerSocket, inOutage).missing.length : null,
      frames_outage_other_missing: outageCoverage.filter((entry) => entry.socket.instance !== tailer).reduce((sum, entry) => sum + entry.missing.length, 0),
      frames_after_missing: sockets.reduce((sum, socket) => sum + frameCoverage(socket, afterBack).missing.length, 0),
      health_back_ms: healthBack,
      writes_acked: load.items.length,
      lost: written.lost.length,
      event_runs_not_once: withoutRun,
      webhook_undelivered: undelivered,
      webhook_resent: receiver.resent(),
      error_lines_after: lines.length,
    });
  } finally {
    await environment.close();
    await receiver.close();
  }
}
