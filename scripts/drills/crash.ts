// `npm run drill -- crash [--short] [--seconds N] [--down N]`: two instances on one database and one
// Redis under mixed write load (items created and updated, releases created and published, manual
// flow runs, file uploads, an event flow running for every article created, a webhook of the whole
// change feed to a local receiver); the instance leading the background work is killed with SIGKILL
// and started again. Proves:
// - every write that was acknowledged (2xx) is readable after the restart, through the restarted
//   instance, as acknowledged (an unacknowledged one may or may not have happened);
// - the event flow ran exactly once for every acknowledged create (its runs are queued exactly once);
// - no webhook delivery id was sent twice with different bodies, and every acknowledged create was
//   delivered at least once;
// - the read models converge to what `svc projections rebuild --all` gives from the log.
import { parseArgs } from 'node:util';
import { call, StatusTally } from './support/http.ts';
import { asAdmin, createCollection, createDrillSite, createMember } from './support/drillSite.ts';
import { prepareEnvironment } from './support/drillEnvironment.ts';
import { progress, runLoad, sleep, UsageError, Verdict, waitFor, type DrillOutcome } from './support/figures.ts';
import { createItemLoad, verifyItems, type Target } from './support/itemLoad.ts';
import { leaderLockNames, leaders } from './support/leadership.ts';
import { createManualFlow, createMixedWrites, logFlow, verifyMixedWrites } from './support/mixedWrites.ts';
import { asyncProjectionsCaughtUp } from './support/readModelChecks.ts';
import { rebuildAndCompare } from './support/rebuildComparison.ts';
import { errorsSince, messageSummary, type LogLine, type ServiceInstance } from './support/serviceInstance.ts';
import { startWebhookReceiver, subscribeWebhook, webhookLag } from './support/webhookReceiver.ts';

const usage = `usage: npm run drill -- crash [--short] [--seconds N] [--down N]
  --short    the CI form: 15 s of load before the kill and 5 s after the restart
  --seconds  seconds of load before the kill (default 60; 15 with --short); as long again after the restart (5 s with --short)
  --down     seconds the killed instance stays down (default 10; 2 with --short)`;

function optionsOf(args: string[]) {
  const { values } = parseArgs({ args, options: { short: { type: 'boolean' }, seconds: { type: 'string' }, down: { type: 'string' } } });
  const short = values.short === true;
  const seconds = Number(values.seconds ?? (short ? 15 : 60));
  const down = Number(values.down ?? (short ? 2 : 10));
  if (!Number.isInteger(seconds) || seconds < 5 || !Number.isInteger(down) || down < 0) throw new UsageError(usage);
  return { seconds, after: short ? 5 : seconds, down, writers: short ? 3 : 4 };
}

const targetOf = (instance: ServiceInstance): Target => ({ name: instance.name, base: instance.base });

/** The instance holding most leader locks (the projection daemon's, the realtime tailer's). */
async function leadingInstance(instances: ServiceInstance[], owner: Parameters<typeof leaders>[0]): Promise<ServiceInstance> {
  const held = [...(await leaders(owner, leaderLockNames(true))).values()];
  const count = (name: string) => held.filter((holder) => holder === name).length;
  return [...instances].sort((a, b) => count(b.name) - count(a.name))[0]!;
}

export async function run(args: string[]): Promise<DrillOutcome> {
  const options = optionsOf(args);
  const startedAt = Date.now();
  const verdict = new Verdict();
  const say = progress('crash', startedAt);
  const receiver = await startWebhookReceiver();
  const environment = await prepareEnvironment('crash', { instances: 2, redis: true, environment: { SVC_SCHEDULER_TICK_MS: '1000', SVC_WEBHOOK_SWEEP_MS: '1000' } });
  try {
    const { instances, database } = environment;
    const first = instances[0]!;
    say('2 instances up');
    const site = await createDrillSite(first.base, 'crash');
    const admin = asAdmin(first.base, site);
    await createCollection(first.base, site, 'articles');
    const adminRole = (await admin('GET', '/roles')).data.find((role: { systemKey: string | null }) => role.systemKey === 'admin').id as string;
    const writers = await Promise.all(Array.from({ length: options.writers }, (_, index) => createMember(first.base, site, adminRole, `writer${index}`)));
    const mixedUser = await createMember(first.base, site, adminRole, 'mixed');
    const eventFlowId = (await admin('POST', '/flows', logFlow('drill on create', 'event', 'articles'))).data.id as string;
    const mixedSetup = { siteId: site.siteId, token: mixedUser.token, manualFlowId: await createManualFlow(first.base, site.siteId, site.adminToken), collection: 'articles' };
    const subscriptionId = await subscribeWebhook(first.base, site.siteId, site.adminToken, receiver.url);

    const items = createItemLoad(site.siteId, 'articles');
    const mixed = createMixedWrites(mixedSetup);
    const reads = new StatusTally();
    let stopAt = Infinity;
    const stop = () => Date.now() >= stopAt;
    const pick = (offset: number) => {
      const alive = instances.filter((instance) => instance.ready);
      return targetOf(alive[offset % alive.length]!);
    };
    say(`load: ${options.writers} item writers, 1 mixed writer (releases, flow runs, files), 1 reader`);
    const loadStart = Date.now();
    const load = Promise.all([
      runLoad(options.writers, stop, (worker, iteration) => items.write(worker, writers[worker]!.token, pick(worker + iteration)), 100),
      runLoad(1, stop, (_, iteration) => mixed.write(iteration, pick(iteration)), 150),
      runLoad(1, stop, async (_, iteration) => reads.add((await call(pick(iteration).base, 'GET', '/items/articles?limit=20&sort=-n', { site: site.siteId, token: site.adminToken })).status), 100),
    ]);

    await sleep(options.seconds * 1000);
    const victim = await leadingInstance(instances, database.owner);
    await victim.stop('SIGKILL');
    const killedAt = Date.now();
    say(`killed instance ${victim.name} (SIGKILL) under load; down for ${options.down} s`);
    await sleep(options.down * 1000);
    await victim.start();
    const restartedAt = Date.now();
    const restartMs = restartedAt - killedAt;
    const bootErrors = errorsSince([victim], killedAt);
    say(`instance ${victim.name} answers again, ${restartMs} ms after the kill${bootErrors.length > 0 ? `; while it started it logged: ${messageSummary(bootErrors)}` : ''}`);
    stopAt = Date.now() + options.after * 1000;
    await load;
    say('load done; waiting for projections, flow runs and webhook deliveries to settle');

    // Settle: projections at the head, every flow run finished (a job the dead instance held is
    // taken back by BullMQ's stall check, 30 s), the webhook at the end of the feed.
    const caughtUp = await waitFor(() => asyncProjectionsCaughtUp(database.owner), 60_000, 200);
    const unfinished = async () =>
      Number((await database.owner.query<{ n: string }>(`SELECT count(*)::text AS n FROM flow_runs WHERE site_id = $1 AND status IN ('queued', 'running')`, [site.siteId])).rows[0]!.n);
    await waitFor(async () => (await unfinished()) === 0, 90_000, 500);
    const delivered = await waitFor(async () => (await webhookLag(victim.base, site.siteId, site.adminToken, subscriptionId)).events === 0, 90_000, 500);
    await waitFor(() => asyncProjectionsCaughtUp(database.owner), 30_000, 200);

    // Acknowledged writes, read back through the restarted instance.
    const itemCheck = await verifyItems(victim.base, site.siteId, site.adminToken, 'articles', items.items);
    const mixedCheck = await verifyMixedWrites(victim.base, mixedSetup, mixed);
    verdict.expect(itemCheck.lost.length === 0, `acknowledged item writes lost after the restart: ${itemCheck.lost.slice(0, 5).join('; ')}`);
    verdict.expect(mixedCheck.lost.length === 0, `acknowledged writes lost after the restart: ${mixedCheck.lost.slice(0, 5).join('; ')}`);

    // The event flow: one run per acknowledged create.
    const { rows: runCounts } = await database.owner.query<{ item_id: string; runs: string }>(
      `SELECT input->>'itemId' AS item_id, count(*)::text AS runs FROM flow_runs WHERE site_id = $1 AND flow_id = $2 GROUP BY 1`,
      [site.siteId, eventFlowId],
    );
    const runsByItem = new Map(runCounts.map((row) => [row.item_id, Number(row.runs)]));
    const withoutRun = items.items.filter((item) => !runsByItem.has(item.id)).length;
    const twice = [...runsByItem.values()].filter((runs) => runs > 1).length;
    verdict.expect(withoutRun === 0, `${withoutRun} acknowledged creates have no run of the event flow`);
    verdict.expect(twice === 0, `${twice} items have more than one run of the event flow`);

    // The webhook: at least once, never two bodies for one delivery id.
    const createdDelivered = receiver.itemIds('items.create');
    const undelivered = items.items.filter((item) => !createdDelivered.has(item.id)).length;
    verdict.expect(delivered !== null, 'the webhook subscription did not reach the end of the feed within 90 s');
    verdict.expect(undelivered === 0, `${undelivered} acknowledged creates were never delivered to the webhook`);
    verdict.expect(receiver.conflicting().length === 0, `deliveries sent twice with different bodies: ${receiver.conflicting().slice(0, 5).join(', ')}`);

    // Rebuild: the log head must stand still first (no run or delivery still writing).
    let head = '';
    await waitFor(async () => {
      const now = JSON.stringify((await database.owner.query('SELECT * FROM svc_log_head()')).rows);
      const still = now === head;
      head = now;
      return still;
    }, 30_000, 1_500);
    say('rebuilding every read model from the log');
    const rebuild = await rebuildAndCompare(database.owner, database.url, environment.dataDir);
    for (const difference of rebuild.differences) {
      verdict.expect(false, `${difference.table} differs from its rebuild: ${difference.onlyBefore.length} rows only before, ${difference.onlyAfter.length} only after (e.g. ${(difference.onlyBefore[0] ?? difference.onlyAfter[0] ?? '').slice(0, 300)})`);
    }
    const serverErrors = items.tally.total((status) => status >= 500) + mixed.tally.total((status) => status >= 500) + reads.total((status) => status >= 500);
    verdict.expect(serverErrors === 0, `${serverErrors} 5xx answers (items ${items.tally.format()}, mixed ${mixed.tally.format()}, reads ${reads.format()})`);
    // The restarted instance's boot (a loaded machine may time connections out while it starts) is left out.
    const booting = (line: LogLine) => (line.time ?? 0) > killedAt && (line.time ?? 0) < restartedAt;
    const loadErrors = errorsSince(instances, loadStart).filter((line) => !booting(line));
    verdict.expect(loadErrors.length === 0, `error log lines: ${messageSummary(loadErrors)}`);

    return verdict.outcome('crash', startedAt, {
      killed: victim.name,
      restart_ms: restartMs,
      items_acked: items.items.length,
      item_writes: items.tally.format(),
      mixed_writes: mixed.tally.format(),
      reads: reads.format(),
      releases_acked: mixed.releases.length,
      releases_published: mixed.releases.filter((release) => release.published).length,
      runs_acked: mixed.runs.length,
      files_acked: mixed.files.length,
      lost: itemCheck.lost.length + mixedCheck.lost.length,
      runs_unfinished: mixedCheck.unfinishedRuns,
      event_runs_missing: withoutRun,
      event_runs_twice: twice,
      webhook_received: receiver.received(),
      webhook_distinct: receiver.distinct(),
      webhook_resent: receiver.resent(),
      webhook_conflicts: receiver.conflicting().length,
      webhook_undelivered: undelivered,
      caught_up: caughtUp === null ? 'no' : 'yes',
      rebuild_tables: rebuild.tables,
      rebuild_rows: rebuild.rows,
      rebuild_diffs: rebuild.differences.length,
      error_lines: loadErrors.length,
      restart_error_lines: errorsSince([victim], killedAt).filter(booting).length,
    });
  } finally {
    await environment.close();
    await receiver.close();
  }
}
