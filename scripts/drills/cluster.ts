// `npm run drill -- cluster [--short] [--seconds N] [--instances N]`: several instances of the service
// on one PostgreSQL database and one Redis, under paced item load, proving what a cluster promises:
// - realtime event frames reach sockets on every instance, whichever instance took the write;
// - a rate limit is one counter for all instances (the sign-in scope, per client IP and site);
// - the scheduler publishes each due release once (one `release.published` per release in the log);
// - the async projections apply each event once (no duplicate change-feed or audit rows, dense feed
//   sequences, checkpoints that never move back, and every one at the log head at the end);
// - a schema, a permission and a content change made on one instance reach every instance's caches
//   within 1 s (item reads, grants, the public delivery cache);
// - killing the instance that leads the async projections (and the realtime tailer) hands that
//   leadership to the others within 10 s, and nothing above breaks because of it.
// Prints one line of figures; any violated property is a failure (exit 1 from the runner).
import { parseArgs } from 'node:util';
import { type Answer, call, StatusTally } from './support/http.ts';
import { probeDeliveryChange, probePermissionChange, probeSchemaChange, probeSharedSignInLimit, type Propagation } from './support/cacheProbes.ts';
import { asAdmin, createCollection, createDrillSite, createMember, createPolicy, createRole, publicRoleId, type DrillSite } from './support/drillSite.ts';
import { prepareEnvironment, type DrillEnvironment } from './support/drillEnvironment.ts';
import { percentile, progress, rounded, runLoad, sleep, UsageError, Verdict, waitFor, type DrillOutcome } from './support/figures.ts';
import { createItemLoad, verifyItems, type Target } from './support/itemLoad.ts';
import { leaderLockNames, leaders } from './support/leadership.ts';
import { frameCoverage, openRealtimeSocket, type RealtimeSocket } from './support/realtimeSocket.ts';
import { asyncProjectionsCaughtUp, feedAndAuditIntegrity, publishEvents, sampleCheckpoints } from './support/readModelChecks.ts';
import { errorsSince, messageSummary, type ServiceInstance } from './support/serviceInstance.ts';

const usage = `usage: npm run drill -- cluster [--short] [--seconds N] [--instances N]
  --short      the CI form: 20 s of load, fewer sockets, writers and releases
  --seconds    seconds of load (default 180; 20 with --short)
  --instances  instances of the service (default 3)`;

const CACHE_BUDGET_MS = 1_000;
const HANDOVER_BUDGET_MS = 10_000;
/**
 * The sign-in limit per client IP and site and window (SVC_RATE_LIMIT_AUTH, set for the drill: each
 * accepted sign-in costs a password hash). The main site's own sign-ins (its users) stay under it.
 */
const SIGN_IN_LIMIT = 15;

interface Scale {
  seconds: number;
  socketsPerInstance: number;
  writers: number;
  readers: number;
  releases: number;
}

function scaleOf(args: string[]): Scale & { instances: number } {
  const { values } = parseArgs({ args, options: { short: { type: 'boolean' }, seconds: { type: 'string' }, instances: { type: 'string' } } });
  const short = values.short === true;
  const seconds = Number(values.seconds ?? (short ? 20 : 180));
  const instances = Number(values.instances ?? 3);
  if (!Number.isInteger(seconds) || seconds < 10) throw new UsageError(`--seconds must be an integer of at least 10\n${usage}`);
  if (!Number.isInteger(instances) || instances < 2 || instances > 6) throw new UsageError(`--instances must be 2 to 6\n${usage}`);
  return short
    ? { seconds, instances, socketsPerInstance: 2, writers: 4, readers: 2, releases: 4 }
    : { seconds, instances, socketsPerInstance: 4, writers: 6, readers: 3, releases: 8 };
}

const targetOf = (instance: ServiceInstance): Target => ({ name: instance.name, base: instance.base });

/** Releases of two draft articles each, due at the given times; answers their ids. */
async function scheduleReleases(base: string, site: DrillSite, dueAt: number[]): Promise<string[]> {
  const admin = asAdmin(base, site);
  const ids: string[] = [];
  for (const [index, at] of dueAt.entries()) {
    const drafts = (await admin('POST', '/items/articles', [
      { title: `release ${index} a`, n: 0, status: 'draft' },
      { title: `release ${index} b`, n: 0, status: 'draft' },
    ])).data as { id: string }[];
    const release = await admin('POST', '/releases', {
      name: `drill release ${index}`,
      publishAt: new Date(at).toISOString(),
      addItems: drafts.map((item) => ({ collection: 'articles', itemId: item.id, targetStatus: 'published' })),
    });
    ids.push(release.data.id);
  }
  return ids;
}

/** Kills the instance holding most leader locks; answers it and how long until others held every lock it held. */
async function killLeader(environment: DrillEnvironment): Promise<{ killed: ServiceInstance; handoverMs: number | null; locks: number }> {
  const names = leaderLockNames(true);
  const held = await leaders(environment.database.owner, names);
  const counts = new Map<string, number>();
  for (const holder of held.values()) counts.set(holder, (counts.get(holder) ?? 0) + 1);
  const leaderName = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const killed = environment.instances.find((instance) => instance.name === leaderName) ?? environment.instances[0]!;
  const itsLocks = [...held].filter(([, holder]) => holder === killed.name).map(([name]) => name);
  await killed.stop('SIGKILL');
  const killedAt = Date.now();
  const handoverMs = await waitFor(async () => {
    const now = await leaders(environment.database.owner, names);
    return itsLocks.every((name) => now.has(name) && now.get(name) !== killed.name);
  }, 30_000, 100);
  return { killed, handoverMs: handoverMs === null ? null : Date.now() - killedAt, locks: itsLocks.length };
}

export async function run(args: string[]): Promise<DrillOutcome> {
  const scale = scaleOf(args);
  const startedAt = Date.now();
  const verdict = new Verdict();
  const say = progress('cluster', startedAt);
  const environment = await prepareEnvironment('cluster', {
    instances: scale.instances,
    redis: true,
    environment: { SVC_SCHEDULER_TICK_MS: '500', SVC_REALTIME_HEARTBEAT_MS: '5000', SVC_RATE_LIMIT_AUTH: String(SIGN_IN_LIMIT) },
  });
  const sockets: RealtimeSocket[] = [];
  try {
    const { instances, database } = environment;
    say(`${instances.length} instances up`);
    const first = instances[0]!;
    const alive = () => instances.filter((instance) => instance.ready).map(targetOf);

    // The site: articles, writers and readers (administrators: the load's users, one each, so no user nears its own limits),
    // a viewer whose role a probe grants and revokes, the public role reading articles for delivery.
    const site = await createDrillSite(first.base, 'cluster');
    const admin = asAdmin(first.base, site);
    await createCollection(first.base, site, 'articles');
    const adminRole = (await admin('GET', '/roles')).data.find((role: { systemKey: string | null }) => role.systemKey === 'admin').id as string;
    const writers = await Promise.all(Array.from({ length: scale.writers }, (_, index) => createMember(first.base, site, adminRole, `writer${index}`)));
    const readers = await Promise.all(Array.from({ length: scale.readers }, (_, index) => createMember(first.base, site, adminRole, `reader${index}`)));
    const viewerRole = await createRole(first.base, site, 'viewer');
    const viewer = { ...(await createMember(first.base, site, viewerRole, 'viewer')), roleId: viewerRole };
    const viewerPolicy = await createPolicy(first.base, site, [{ collection: 'articles', action: 'read' }], null);
    await createPolicy(first.base, site, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'n'] }], { roleId: await publicRoleId(first.base, site) });
    const probeItem = (await admin('POST', '/items/articles', { title: 'delivery probe', n: 0 })).data.id as string;

    // Releases: half due while every instance runs (scheduled now), half scheduled right after the leader is killed.
    const half = Math.ceil(scale.releases / 2);
    const dueSoon = (count: number) => Array.from({ length: count }, (_, index) => Date.now() + 6_000 + index * 1_000);
    const dueAt = dueSoon(half);
    const releaseIds = await scheduleReleases(first.base, site, dueAt);

    for (const instance of instances) {
      for (let index = 0; index < scale.socketsPerInstance; index += 1) {
        sockets.push(await openRealtimeSocket(instance.base, instance.name, site.siteId, site.adminToken, ['articles']));
      }
    }

    say(`site, ${sockets.length} sockets and ${releaseIds.length} scheduled releases ready; load for at least ${scale.seconds} s`);
    // Load, until `loadEnd`: at least the seconds asked for, and long enough after the kill for its releases.
    const loadStart = Date.now();
    let loadEnd = Infinity;
    const sampler = sampleCheckpoints(database.owner);
    const load = createItemLoad(site.siteId, 'articles');
    const reads = new StatusTally();
    const stop = () => Date.now() >= loadEnd;
    const pick = (offset: number) => {
      const targets = alive();
      return targets[offset % targets.length]!;
    };
    const writing = runLoad(scale.writers, stop, (worker, iteration) => load.write(worker, writers[worker]!.token, pick(worker + iteration)), 120);
    const reading = runLoad(scale.readers, stop, async (worker, iteration) => {
      const target = pick(worker + iteration);
      const item = load.items[Math.floor(Math.random() * load.items.length)];
      const answer: Answer = item && iteration % 2 === 0
        ? await call(target.base, 'GET', `/items/articles/${item.id}`, { site: site.siteId, token: readers[worker]!.token })
        : await call(target.base, 'GET', '/items/articles?limit=10&sort=-n', { site: site.siteId, token: readers[worker]!.token });
      reads.add(answer.status);
    }, 60);

    // Probes while the load runs, every instance still alive.
    await sleep(2_000);
    say('probing the shared sign-in limit and the caches');
    const signIns = await probeSharedSignInLimit(alive(), SIGN_IN_LIMIT + 8);
    const [a, b, c] = [instances[0]!, instances[1]!, instances[instances.length - 1]!].map(targetOf) as [Target, Target, Target];
    const schema = await probeSchemaChange(alive(), a, site, 'articles');
    const permission = await probePermissionChange(alive(), b, c, site, viewer, viewerPolicy, 'articles');
    const delivery = await probeDeliveryChange(alive(), c, site, 'articles', probeItem);

    // The kill, past 40 % of the load time, then the rest of the releases through a survivor.
    await sleep(Math.max(0, loadStart + scale.seconds * 400 - Date.now()));
    const leaderKill = await killLeader(environment);
    say(`killed instance ${leaderKill.killed.name} (it held ${leaderKill.locks} leader locks); handover in ${leaderKill.handoverMs} ms`);
    const laterDue = dueSoon(scale.releases - half);
    releaseIds.push(...(await scheduleReleases(alive()[0]!.base, site, laterDue)));
    dueAt.push(...laterDue);
    loadEnd = Math.max(loadStart + scale.seconds * 1000, Math.max(...laterDue) + 2_000);
    await Promise.all([writing, reading]);

    say('load done; settling');
    // Settle: the projections catch up, due releases are published, frames arrive.
    const survivors = instances.filter((instance) => instance.running);
    const settleMs = await waitFor(() => asyncProjectionsCaughtUp(database.owner), 30_000, 200);
    const lastDue = Math.max(...dueAt);
    await waitFor(async () => {
      const published = await publishEvents(database.owner, site.siteId, releaseIds);
      return Date.now() > lastDue && [...published.values()].every((triggers) => triggers.length > 0);
    }, Math.max(0, lastDue - Date.now()) + 15_000, 250);
    const creates = load.items.map((item) => ({ id: item.id, sentAt: item.sentAt, ackedAt: item.ackedAt }));
    const coverageOf = (socket: RealtimeSocket) => frameCoverage(socket, creates, socket.instance === leaderKill.killed.name ? (socket.closedAt ?? Infinity) - 2_000 : Infinity);
    await waitFor(() => sockets.every((socket) => coverageOf(socket).missing.length === 0), 10_000, 200);
    await sampler.stop();

    // Checks.
    const written = await verifyItems(survivors[0]!.base, site.siteId, site.adminToken, 'articles', load.items);
    verdict.expect(written.lost.length === 0, `acknowledged writes lost or wrong: ${written.lost.slice(0, 5).join('; ')}`);
    const coverage = sockets.map((socket) => ({ socket, ...coverageOf(socket) }));
    // An instance whose Redis subscribe failed fans its frames out locally only (a hint for the failure).
    const unsubscribed = instances.filter((instance) => instance.warnings.some((line) => line.msg === 'realtime broker could not subscribe')).map((instance) => instance.name);
    for (const { socket, missing, expected } of coverage) {
      verdict.expect(
        missing.length === 0,
        `a socket on instance ${socket.instance} missed ${missing.length} of ${expected} create frames (e.g. ${missing.slice(0, 2).join(', ')}); ` +
          `instances that logged "realtime broker could not subscribe": ${unsubscribed.join(', ') || 'none'}`,
      );
    }
    for (const instance of instances) {
      verdict.expect(coverage.some((entry) => entry.socket.instance === instance.name && entry.expected > 0), `no socket on instance ${instance.name} had frames to receive`);
    }
    verdict.expect(signIns.accepted === SIGN_IN_LIMIT && signIns.limited === signIns.attempts - SIGN_IN_LIMIT, `sign-ins over ${instances.length} instances: ${signIns.accepted} accepted, ${signIns.limited} limited, ${signIns.other} other (want ${SIGN_IN_LIMIT} accepted)`);
    const published = await publishEvents(database.owner, site.siteId, releaseIds);
    const publishedOnce = [...published.values()].filter((triggers) => triggers.length === 1 && triggers[0] === 'scheduler').length;
    for (const [id, triggers] of published) verdict.expect(triggers.length === 1 && triggers[0] === 'scheduler', `release ${id}: published ${triggers.length} times (${triggers.join(', ') || 'never'})`);
    const integrity = await feedAndAuditIntegrity(database.owner, [site.siteId]);
    verdict.expect(integrity.duplicateEvents === 0, `${integrity.duplicateEvents} events have more than one change-feed entry`);
    verdict.expect(integrity.brokenSequences.length === 0, `change-feed sequences not dense: ${integrity.brokenSequences.join('; ')}`);
    verdict.expect(integrity.duplicateAudit === 0, `${integrity.duplicateAudit} duplicate audit rows`);
    verdict.expect(sampler.regressions().length === 0, `checkpoints moved back: ${sampler.regressions().join('; ')}`);
    verdict.expect(settleMs !== null, 'the async projections did not catch up with the log within 30 s of the load');
    const probes: [string, Propagation][] = [['schema', schema], ['grant', permission.grant], ['revoke', permission.revoke], ['delivery', delivery]];
    for (const [name, propagation] of probes) {
      verdict.expect(propagation.notWarmed.length === 0, `${name} probe: instances ${propagation.notWarmed.join(', ')} did not answer the old way before the change`);
      verdict.expect(propagation.ms !== null && propagation.ms <= CACHE_BUDGET_MS, `${name} change reached every instance in ${propagation.ms ?? '> 5000'} ms (budget ${CACHE_BUDGET_MS})`);
    }
    verdict.expect(leaderKill.locks > 0, `the killed instance ${leaderKill.killed.name} led nothing`);
    verdict.expect(leaderKill.handoverMs !== null && leaderKill.handoverMs <= HANDOVER_BUDGET_MS, `leadership handed over in ${leaderKill.handoverMs ?? '> 30000'} ms (budget ${HANDOVER_BUDGET_MS})`);
    const serverErrors = load.tally.total((status) => status >= 500) + reads.total((status) => status >= 500);
    verdict.expect(serverErrors === 0, `${serverErrors} 5xx answers under load (writes ${load.tally.format()}, reads ${reads.format()})`);
    const loadErrors = errorsSince(survivors, loadStart);
    verdict.expect(loadErrors.length === 0, `error log lines on surviving instances under load: ${messageSummary(loadErrors)}`);

    const latencies = coverage.flatMap((entry) => entry.latencies);
    return verdict.outcome('cluster', startedAt, {
      instances: instances.length,
      load_s: scale.seconds,
      writes_acked: load.items.length + load.tally.total((status) => status === 200),
      writes_unacked: load.unacknowledged(),
      lost: written.lost.length,
      writes: load.tally.format(),
      reads: reads.format(),
      sockets: sockets.length,
      frames_expected: coverage.reduce((sum, entry) => sum + entry.expected, 0),
      frames_missing: coverage.reduce((sum, entry) => sum + entry.missing.length, 0),
      frame_dups: coverage.reduce((sum, entry) => sum + entry.duplicates, 0),
      frame_p50_ms: percentile(latencies, 50),
      frame_p99_ms: percentile(latencies, 99),
      signin_limit: `${signIns.accepted}/${signIns.attempts}`,
      releases: releaseIds.length,
      published_once: publishedOnce,
      feed_entries: integrity.entries,
      feed_dups: integrity.duplicateEvents,
      audit_dups: integrity.duplicateAudit,
      checkpoint_samples: sampler.samples(),
      checkpoint_regressions: sampler.regressions().length,
      schema_ms: schema.ms,
      grant_ms: permission.grant.ms,
      revoke_ms: permission.revoke.ms,
      delivery_ms: delivery.ms,
      killed: leaderKill.killed.name,
      handover_ms: leaderKill.handoverMs,
      catchup_ms: rounded(settleMs),
      error_lines: loadErrors.length,
      boot_error_lines: errorsSince(instances).length - errorsSince(instances, loadStart).length,
    });
  } finally {
    for (const socket of sockets) socket.close();
    await environment.close();
  }
}
