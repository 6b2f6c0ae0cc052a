// Site email at size (docs/email.md), the figure: a marketing send to 10,000 recipients,
// checked against 100,000 suppressions, is planned (filtered and queued) in under 5 s, and delivered
// to a local SMTP server with progress reported.
// The service runs in this process (createContext + buildServer over a scratch database of
// DATABASE_URL's server, production settings, rate limits off), SMTP_URL on the bench's SMTP sink
// (scripts/bench/support/smtpSink.ts, on a thread of its own: it counts what arrives without parsing
// it), the job queue of the PostgreSQL database, or BullMQ on REDIS_URL with --redis.
// 1. Seeds, through the command registry as the routes run it: --suppressions addresses
//    (`email.suppress`, --concurrency at a time) and --users site users (`users.create`), of whom 60 %
//    grant marketing consent, 20 % do not (never given, or withdrawn) and 20 % grant it but restrict
//    processing (each person's own `privacy.setConsent` and `privacy.setRestriction`).
// 2. A layout and a marketing template over HTTP, a preview and a small warm-up send.
// 3. POST /email/send of --recipients addresses: 10 % of them suppressed, every seeded user, the rest
//    unknown, some in upper case. The planning time (the request to its 202) is THE figure, with the
//    skipped counts checked against the seed.
// 4. GET /email/messages/:id every 500 ms until the send is completed: progress lines, the delivery
//    time and rate, and what the sink received (it must equal counts.sent, and no skipped address may
//    get anything).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createContext } from '../../src/boot/boot.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildServer } from '../../src/server/app.ts';
import { inProcessBenchEnvironment } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { administrator, planRecipients, seconds, seedSuppressions, seedUsers, SITE, SKIPPED_PREFIXES, thousands, type RecipientPlan } from './support/emailSeed.ts';
import { caller, cpuClock, createTemplate, followDelivery, POLL_MS, timePlanning, WARM_UP_RECIPIENTS, warmUp, type Delivery, type Measure, type Planning } from './support/emailSend.ts';
import { positiveInteger } from './support/options.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const usage = `usage: npm run bench -- email [--suppressions 100000] [--recipients 10000] [--users 300] [--concurrency 16] [--timeout 600] [--redis] [--keep]
  --suppressions  addresses on the site's suppression list, seeded through email.suppress
  --recipients    addresses of the marketing send (at most 10,000, the contract's limit per call): 10 % of them
                  suppressed, every seeded user, the rest unknown to the site
  --users         site users among the recipients: 60 % consented, 20 % not (never or withdrawn), 20 % restricted
  --concurrency   seeding commands run at once
  --timeout       seconds to wait for the delivery to complete
  --redis         the job queue on BullMQ (REDIS_URL must be set); default the PostgreSQL-backed queue
  --keep          keep the scratch database (prints its name)
SVC_EMAIL_* and SVC_MAIL_FROM from the environment are passed to the service (the defaults of docs/email.md otherwise).`;

const TARGET = { planningMs: 5_000 };
const MAX_MARKETING_RECIPIENTS = 10_000;

const round2 = (value: number) => Math.round(value * 100) / 100;
const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000));

/** SVC_EMAIL_* and SVC_MAIL_FROM of the bench's environment, for the service (docs/email.md, Configuration). */
function emailSettingsFromEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => (entry[0].startsWith('SVC_EMAIL_') || entry[0] === 'SVC_MAIL_FROM') && entry[1] !== undefined),
  );
}

interface Check {
  name: string;
  figure: string;
  target: string;
  met: boolean | null;
}

function printTable(rows: Check[]): void {
  console.log(`\n${'step'.padEnd(40)} ${'figure'.padEnd(80)} ${'target'.padEnd(28)} verdict`);
  for (const row of rows) {
    const verdict = row.met === null ? '' : row.met ? 'ok' : 'FAILED';
    console.log(`${row.name.padEnd(40)} ${row.figure.padEnd(80)} ${row.target.padEnd(28)} ${verdict}`);
  }
}

interface Options {
  suppressions: number;
  recipients: number;
  users: number;
  concurrency: number;
  timeoutMs: number;
  /** REDIS_URL with --redis (BullMQ), else empty (the PostgreSQL-backed queue). */
  redisUrl: string;
  keep: boolean;
}

function parseOptions(args: string[]): Options | null {
  const { values } = parseArgs({
    args,
    options: {
      suppressions: { type: 'string', default: '100000' },
      recipients: { type: 'string', default: String(MAX_MARKETING_RECIPIENTS) },
      users: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '16' },
      timeout: { type: 'string', default: '600' },
      redis: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  const recipients = positiveInteger(values.recipients, 'recipients', usage);
  if (recipients > MAX_MARKETING_RECIPIENTS) throw new Error(`--recipients is at most ${thousands(MAX_MARKETING_RECIPIENTS)} (one marketing send)\n${usage}`);
  const redisUrl = values.redis ? (process.env.REDIS_URL ?? '') : '';
  if (values.redis && !redisUrl) throw new Error(`--redis needs REDIS_URL\n${usage}`);
  return {
    suppressions: positiveInteger(values.suppressions, 'suppressions', usage),
    recipients,
    users: positiveInteger(values.users, 'users', usage),
    concurrency: positiveInteger(values.concurrency, 'concurrency', usage),
    timeoutMs: positiveInteger(values.timeout, 'timeout', usage) * 1000,
    redisUrl,
    keep: values.keep,
  };
}

type Context = Awaited<ReturnType<typeof createContext>>;

/** The service in this process, production settings, its SMTP relay the sink. */
async function startService(databaseUrl: string, dataDir: string, redisUrl: string, smtpUrl: string, emailSettings: Record<string, string>) {
  const config = loadConfig(inProcessBenchEnvironment(databaseUrl, dataDir, { REDIS_URL: redisUrl, SMTP_URL: smtpUrl, ...emailSettings }));
  const context = await createContext(config);
  const server = await buildServer(context);
  const base = `${await server.listen({ host: '127.0.0.1', port: 0 })}/api/v1`;
  return {
    context,
    base,
    async close() {
      await server.close();
      await context.close();
    },
  };
}

interface Outcome {
  seed: { suppressions: number; suppressionsMs: number; cpuMsPerSuppression: { process: number; db: number | null }; users: number; usersMs: number };
  warmUp: { planningMs: number; completedMs: number };
  planning: Planning;
  delivery: Delivery;
  /** GET /email/messages/:id/recipients?status=sent: its meta.total. */
  listedSent: number;
}

/** Steps 1 to 4 of the header, on a started service. */
async function measureSend(service: { context: Context; base: string }, options: Options, plan: RecipientPlan, sink: SmtpSink, measure: Measure): Promise<Outcome> {
  const { context, base } = service;
  const { token, userId } = await prepareSite(base, SITE, false);
  const call = caller(base, token);
  const adminUser = await call<{ data: { roleId: string | null } }>('GET', `/users/${userId}`);
  const admin = administrator(userId, adminUser.data.roleId);

  console.log(`1. seeding ${thousands(options.suppressions)} suppressions (email.suppress, ${options.concurrency} at a time)…`);
  const seedCpu = await cpuClock(measure);
  const suppressionsMs = await seedSuppressions(context.commands, admin, options.suppressions, options.concurrency);
  const { processMs, dbMs } = await seedCpu();
  const seedCpuMs = { process: round2(processMs / options.suppressions), db: dbMs === null ? null : round2(dbMs / options.suppressions) };
  console.log(
    `   ${thousands(options.suppressions)} suppressions in ${seconds(suppressionsMs)} (${thousands(perSecond(options.suppressions, suppressionsMs))}/s; ` +
      `CPU per command: process ${seedCpuMs.process} ms, db ${seedCpuMs.db ?? '?'} ms)`,
  );
  console.log(`   seeding ${plan.users} site users (users.create, then their own privacy.setConsent / privacy.setRestriction)…`);
  const usersMs = await seedUsers(context.commands, admin, plan.users, options.concurrency);
  console.log(`   ${plan.users} users in ${seconds(usersMs)}`);
  await waitForAsyncProjections(measure.owner, { quiet: true });
  // As autovacuum would after this many inserts: the planner sees the suppression list as it is.
  await measure.owner.query('ANALYZE');

  console.log('2. layout, marketing template, preview, warm-up send…');
  await createTemplate(call);
  const warm = await warmUp(call);
  console.log(`   warm-up: ${WARM_UP_RECIPIENTS} recipients planned in ${warm.planningMs} ms, delivered in ${warm.completedMs} ms`);
  await waitForAsyncProjections(measure.owner, { quiet: true });
  sink.resetClock();

  console.log(`3. POST /email/send to ${thousands(options.recipients)} addresses…`);
  const baseline = sink.counts();
  const planning = await timePlanning(call, plan.addresses, { ...measure, stats: context.database.stats });
  console.log(
    `   202 in ${thousands(planning.ms)} ms: status ${planning.answer.status}, ${thousands(planning.answer.counts.queued)} queued, skipped ${JSON.stringify(planning.answer.skipped)} ` +
      `(${thousands(planning.statements)} statements, process CPU ${planning.processCpuMs} ms, db CPU ${planning.dbCpuMs ?? '?'} ms)`,
  );

  console.log(`4. delivery to the SMTP sink (GET /email/messages/${planning.id} every ${POLL_MS} ms):`);
  const delivery = await followDelivery(call, planning, sink, baseline, options.timeoutMs, measure);
  const listed = await call<{ meta: { total: number } }>('GET', `/email/messages/${planning.id}/recipients?status=sent&limit=1`);
  return {
    seed: { suppressions: options.suppressions, suppressionsMs: Math.round(suppressionsMs), cpuMsPerSuppression: seedCpuMs, users: plan.users, usersMs: Math.round(usersMs) },
    warmUp: warm,
    planning,
    delivery,
    listedSent: listed.meta.total,
  };
}

/** The queue starts delivering as the plan commits, so the first message may arrive before the 202 reaches the client. */
function firstMessageWhen(ms: number): string {
  return ms < 0 ? `${-ms} ms before the 202 arrived` : `${ms} ms after`;
}

function summaryRows(outcome: Outcome, plan: RecipientPlan, concurrency: number): Check[] {
  const { seed, planning, delivery } = outcome;
  const { skipped } = planning.answer;
  const { counts } = delivery.message;
  const expected = plan.expectedSkipped;
  return [
    {
      name: 'seed: suppressions (email.suppress)',
      figure:
        `${thousands(seed.suppressions)} in ${seconds(seed.suppressionsMs)} (${thousands(perSecond(seed.suppressions, seed.suppressionsMs))}/s, ${concurrency} at a time; ` +
        `CPU ${seed.cpuMsPerSuppression.process} + db ${seed.cpuMsPerSuppression.db ?? '?'} ms each)`,
      target: '',
      met: null,
    },
    { name: 'seed: site users', figure: `${seed.users} in ${seconds(seed.usersMs)}`, target: '', met: null },
    {
      name: 'planning: POST /email/send → 202',
      figure: `${thousands(planning.ms)} ms (${thousands(planning.statements)} statements, CPU ${planning.processCpuMs} + db ${planning.dbCpuMs ?? '?'} ms)`,
      target: `< ${TARGET.planningMs / 1000} s`,
      met: planning.ms < TARGET.planningMs,
    },
    {
      name: 'planning: skipped',
      figure: `suppressed ${skipped.suppressed}, no consent ${skipped.noConsent}, restricted ${skipped.restricted}`,
      target: `${expected.suppressed}, ${expected.noConsent}, ${expected.restricted}`,
      met: skipped.suppressed === expected.suppressed && skipped.noConsent === expected.noConsent && skipped.restricted === expected.restricted,
    },
    {
      name: 'delivery: 202 → last message at the sink',
      figure:
        delivery.deliveredMs === null
          ? 'nothing received'
          : `${seconds(delivery.deliveredMs)}, ${thousands(delivery.messagesPerSecond ?? 0)} msg/s (the first message ${firstMessageWhen(delivery.firstMessageMs ?? 0)})`,
      target: '',
      met: null,
    },
    {
      name: 'delivery: counts',
      figure:
        `${delivery.message.status}${delivery.timedOut ? ' (TIMED OUT)' : ''}: sent ${counts.sent}, deferred ${counts.deferred}, ` +
        `bounced ${counts.bounced}, failed ${counts.failed}, queued ${counts.queued}`,
      target: `sent ${plan.expectedSent}, nothing else`,
      met: !delivery.timedOut && delivery.message.status === 'completed' && counts.sent === plan.expectedSent && counts.deferred + counts.bounced + counts.failed === 0,
    },
    {
      name: 'delivery: the sink received',
      figure: `${thousands(delivery.sink.messages)} messages, ${thousands(delivery.sink.distinctRecipients)} distinct, ${delivery.sink.forbidden} to skipped addresses`,
      target: '= counts.sent, 0 skipped',
      met: delivery.sink.messages === counts.sent && delivery.sink.distinctRecipients === delivery.sink.messages && delivery.sink.forbidden === 0,
    },
    { name: 'delivery: recipients listed sent', figure: thousands(outcome.listedSent), target: '= counts.sent', met: outcome.listedSent === counts.sent },
  ];
}

function printNotes(outcome: Outcome): void {
  const { delivery } = outcome;
  const cpuPerMessage = round2((delivery.processCpuMs + (delivery.dbCpuMs ?? 0)) / Math.max(1, delivery.message.counts.sent));
  console.log(
    `(planning: measured by the client over HTTP, after a ${WARM_UP_RECIPIENTS}-recipient warm-up send planned in ${outcome.warmUp.planningMs} ms; ` +
      "statements: all the process sent meanwhile (the queue's first claims included); CPU: this process (service, client and the sink's thread) and the scratch database's backends. " +
      `Delivery: the send's own createdAt → completedAt ${delivery.serviceCompletedMs ?? '?'} ms, seen completed by the poll ${seconds(delivery.seenCompletedMs)} after the 202; ` +
      `CPU ${delivery.processCpuMs} ms + db ${delivery.dbCpuMs ?? '?'} ms (${cpuPerMessage} ms per message); ` +
      `${delivery.sink.connections} SMTP connections opened in the run, ${thousands(Math.round(delivery.sink.bytes / 1024))} KiB received.)`,
  );
}

function reportOf(outcome: Outcome, options: Options, plan: RecipientPlan, rows: Check[], emailSettings: Record<string, string>) {
  const { planning, delivery } = outcome;
  return {
    benchmark: 'email',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { suppressions: options.suppressions, recipients: options.recipients, users: plan.users, concurrency: options.concurrency, timeoutMs: options.timeoutMs },
    queue: options.redisUrl ? 'bullmq' : 'postgres',
    environment: emailSettings,
    target: TARGET,
    seed: { ...outcome.seed, suppressionsPerSecond: perSecond(outcome.seed.suppressions, outcome.seed.suppressionsMs) },
    warmUp: outcome.warmUp,
    planning: {
      ms: planning.ms,
      met: planning.ms < TARGET.planningMs,
      statements: planning.statements,
      processCpuMs: planning.processCpuMs,
      dbCpuMs: planning.dbCpuMs,
      status: planning.answer.status,
      counts: planning.answer.counts,
      skipped: planning.answer.skipped,
      expectedSkipped: plan.expectedSkipped,
    },
    delivery: {
      status: delivery.message.status,
      timedOut: delivery.timedOut,
      counts: delivery.message.counts,
      expectedSent: plan.expectedSent,
      deliveredMs: delivery.deliveredMs,
      firstMessageMs: delivery.firstMessageMs,
      seenCompletedMs: delivery.seenCompletedMs,
      serviceCompletedMs: delivery.serviceCompletedMs,
      messagesPerSecond: delivery.messagesPerSecond,
      processCpuMs: delivery.processCpuMs,
      dbCpuMs: delivery.dbCpuMs,
      sink: delivery.sink,
      listedSent: outcome.listedSent,
    },
    checks: Object.fromEntries(rows.filter((row) => row.met !== null).map((row) => [row.name, row.met])),
  };
}

/** The figures on one line, for a log or a CI step to pick up. */
function summaryLine(report: ReturnType<typeof reportOf>): string {
  return JSON.stringify({
    benchmark: report.benchmark,
    at: report.at,
    queue: report.queue,
    recipients: report.options.recipients,
    suppressions: report.options.suppressions,
    suppressionsPerSecond: report.seed.suppressionsPerSecond,
    planningMs: report.planning.ms,
    planningMet: report.planning.met,
    skipped: report.planning.skipped,
    sent: report.delivery.counts.sent,
    deliveredMs: report.delivery.deliveredMs,
    messagesPerSecond: report.delivery.messagesPerSecond,
    sinkReceived: report.delivery.sink.messages,
    checksPassed: Object.values(report.checks).every(Boolean),
  });
}

export async function run(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (!options) {
    console.log(usage);
    return;
  }
  const plan = planRecipients(options.recipients, options.suppressions, options.users);
  const emailSettings = emailSettingsFromEnvironment();
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_email_${Date.now().toString(36)}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-email-'));
  const sink = await startSmtpSink({ forbiddenPrefixes: SKIPPED_PREFIXES });
  const owner = new pg.Client({ connectionString: scratch.url });
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let outcome: Outcome;
  try {
    service = await startService(scratch.url, dataDir, options.redisUrl, sink.url, emailSettings);
    await owner.connect();
    console.log(
      `email bench: ${thousands(options.recipients)} recipients against ${thousands(options.suppressions)} suppressions, ` +
        `${options.redisUrl ? 'BullMQ' : 'PostgreSQL'} job queue, SMTP sink ${sink.url}`,
    );
    outcome = await measureSend(service, options, plan, sink, { owner, databaseName: scratch.name });
  } finally {
    await service?.close();
    await sink.close();
    await owner.end().catch(() => undefined);
    if (options.keep) console.log(`kept database ${scratch.name}`);
    else await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const rows = summaryRows(outcome, plan, options.concurrency);
  printTable(rows);
  printNotes(outcome);
  const report = reportOf(outcome, options, plan, rows, emailSettings);
  console.log(summaryLine(report));
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `email-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${file}`);
  const failed = rows.filter((row) => row.met === false).map((row) => row.name);
  if (failed.length > 0) throw new Error(`checks failed: ${failed.join('; ')}`);
}
