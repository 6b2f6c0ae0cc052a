// The compliance-report part of `npm run bench -- insights` (docs/compliance-reports.md): seeds a
// scratch database (DATABASE_URL's server) with N events of one site in bulk SQL (streams of items, each
// event hashed and chained as svc_append does), the audit entries the report reads, and the signed
// checkpoints that cover them (the audit area's own task); then runs one JSON report through the
// worker function in process and reports entries/s and the RSS sampled during the run (start, peak,
// end: flat memory). Target: >= 20,000 entries/s over 1,000,000 entries.
//   npm run bench -- insights --part reports [--entries 1000000] [--keep]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { reportDecider } from '../../../domain/reports/report.ts';
import { createSigningKey } from '../../../infra/crypto/signing.ts';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import { migrate } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { createLocalObjectStorage } from '../../../infra/storage/localStorage.ts';
import { projections } from '../../../projections/index.ts';
import { takeLogCheckpoints } from '../../../src/modules/audit/checkpointTask.ts';
import { generateReport, reportStream } from '../../../src/modules/reports/generateReport.ts';
import { periodBounds, periodEvidence } from '../../../src/modules/reports/reportEvidence.ts';
import type { AppContext } from '../../../src/runtime/context.ts';
import { handleCommand } from '../../../src/runtime/commandHandler.ts';
import { positiveInteger } from './options.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';

const SITE = 'bench-reports';
const TARGET_PER_SECOND = 20_000;
const EVENTS_PER_STREAM = 1_000;
const CHECKPOINT_EVERY = 10_000;
const START = Date.parse('2030-01-01T00:00:00.000Z');
const usage = 'usage: npm run bench -- insights --part reports [--entries 1000000] [--keep]';

/** Round k writes event k of every stream, chained to event k-1 (svc_event_hash, as svc_append hashes). */
async function seedEvents(database: Database, entries: number): Promise<void> {
  const streams = Math.max(1, Math.ceil(entries / EVENTS_PER_STREAM));
  const rounds = Math.ceil(entries / streams);
  for (let round = 1; round <= rounds; round += 1) {
    const count = Math.min(streams, entries - (round - 1) * streams);
    await database.query(sql`
      INSERT INTO events (site_id, stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at, prev_hash, hash)
      SELECT ${SITE}, n.stream_id, ${round}::bigint, n.event_id, n.type, 1, n.data, n.metadata, n.recorded_at, p.hash,
             svc_event_hash(p.hash, ${SITE}, n.stream_id, ${round}::bigint, n.event_id, n.type, 1, n.data, n.metadata, n.recorded_at)
        FROM (SELECT ${SITE} || '/item/' || c.collection || '/' || s AS stream_id, gen_random_uuid() AS event_id,
                     CASE WHEN ${round}::int = 1 THEN 'item.created' ELSE 'item.updated' END AS type,
                     jsonb_build_object('collection', c.collection, 'itemId', s::text, 'delta', jsonb_build_object('title', 'Title ' || s)) AS data,
                     '{"actor":{"kind":"user","id":"bench-user"},"requestId":"bench-request"}'::jsonb AS metadata,
                     ${new Date(START)}::timestamptz + (((${round}::int - 1) * ${streams}::int + s) * interval '1 millisecond') AS recorded_at
                FROM generate_series(1, ${count}::int) s
                CROSS JOIN LATERAL (SELECT CASE WHEN s % 2 = 0 THEN 'articles' ELSE 'notes' END AS collection) c) n
        LEFT JOIN events p ON p.stream_id = n.stream_id AND p.stream_position = ${round - 1}::bigint`);
  }
}

/** The audit entries of those events, as projections/auditProjection.ts writes them. */
async function seedAuditLog(database: Database): Promise<void> {
  await database.query(sql`
    INSERT INTO audit_log (site_id, position, event_id, action, actor_kind, actor_id, impersonator_id, target, request_id, occurred_at, details)
    SELECT site_id, position, event_id, type, 'user', 'bench-user', NULL, substr(stream_id, length(site_id) + 2), 'bench-request', recorded_at,
           jsonb_build_object('collection', data->>'collection', 'itemId', data->>'itemId', 'changedFields', '["title"]'::jsonb)
      FROM events WHERE site_id = ${SITE}`);
}

function rssSampler() {
  const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      const end = process.memoryUsage().rss;
      return { startMiB: mib(start), peakMiB: mib(Math.max(peak, end)), endMiB: mib(end) };
    },
  };
}

export async function runComplianceReports(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: false, options: { entries: { type: 'string', default: '1000000' }, keep: { type: 'boolean', default: false } } });
  const entries = positiveInteger(values.entries as string, 'entries', usage);
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_reports_${Date.now().toString(36)}`);
  const folder = mkdtempSync(join(tmpdir(), 'svc-bench-reports-'));
  let owner: Database | null = null;
  let database: Database | null = null;
  try {
    await migrate(scratch.url);
    // The owner seeds; the report runs as the service does, under row-level security.
    owner = createDatabase({ connectionString: scratch.url, poolSize: 2, asApplicationRole: false });
    database = createDatabase({ connectionString: scratch.url, poolSize: 4 });
    const signingKey = createSigningKey(undefined, 'svc-benchmark-secret-svc-benchmark-secret');
    const seedStarted = Date.now();
    await seedEvents(owner, entries);
    await seedAuditLog(owner);
    await owner.query(sql`ANALYZE events`);
    await owner.query(sql`ANALYZE audit_log`);
    const config = { SVC_CHECKPOINT_EVERY: CHECKPOINT_EVERY, SVC_CHECKPOINT_INTERVAL: 3_600_000 } as AppContext['config'];
    for (let run = 1; ; run += 1) {
      const taken = await takeLogCheckpoints({ database, config, signingKey }, new Date(START + 2 * run * 3_600_000));
      if (taken.caughtUp && taken.eventsRead === 0) break;
    }
    console.log(`reports: seeded ${entries} events, audit entries and their checkpoints in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const context = { database, projections, signingKey };
    const reportId = randomUUID();
    const params = { from: new Date(START).toISOString(), to: new Date(START + entries + 60_000).toISOString(), collections: [], actions: [], format: 'json' as const };
    await handleCommand(context, {
      siteId: SITE,
      streamId: reportStream(SITE, reportId),
      decider: reportDecider,
      command: { type: 'requestReport', reportId, params },
      metadata: { actor: { kind: 'user', id: 'bench-user' } },
    });
    const memory = rssSampler();
    const started = performance.now();
    await generateReport(context, createLocalObjectStorage(folder), SITE, reportId, { temporaryFolder: folder });
    const seconds = (performance.now() - started) / 1000;
    const rss = memory.stop();
    const [report] = await owner.query<{ status: string; entries: number; bytes: number; valid: boolean; problems: number; error: string | null }>(
      sql`SELECT status, entries, bytes, valid, problems, error FROM compliance_reports WHERE site_id = ${SITE} AND id = ${reportId}`,
    );
    if (report?.status !== 'completed') throw new Error(`the report did not complete: ${JSON.stringify(report)}`);
    // The evidence alone (chains and checkpoints verified), to tell it from the streaming.
    const evidenceStarted = performance.now();
    await database.withSite(SITE, async (tx) => periodEvidence(tx, SITE, params, await periodBounds(tx, SITE, params), signingKey));
    const evidenceSeconds = (performance.now() - evidenceStarted) / 1000;
    const perSecond = Math.round(report.entries / seconds);
    console.log(
      `reports: ${report.entries} entries, ${(report.bytes / 2 ** 20).toFixed(1)} MiB of JSON in ${seconds.toFixed(1)} s: ${perSecond} entries/s ` +
        `(target >= ${TARGET_PER_SECOND}; ${perSecond >= TARGET_PER_SECOND ? 'PASS' : 'FAIL'}), of which the evidence ${evidenceSeconds.toFixed(1)} s; ` +
        `verification ${report.valid ? 'valid' : `invalid (${report.problems} problems)`}; RSS start ${rss.startMiB} MiB, peak ${rss.peakMiB} MiB, end ${rss.endMiB} MiB`,
    );
  } finally {
    await database?.close();
    await owner?.close();
    rmSync(folder, { recursive: true, force: true });
    if (values.keep) console.log(`reports: kept ${scratch.name}`);
    else await scratch.drop();
  }
}
