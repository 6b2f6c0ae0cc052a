// Privacy at size (docs/privacy.md), against the service as a child process (`svc start`,
// NODE_ENV=production, rate limits off) on a scratch database of DATABASE_URL's server, with a key
// ring of two keys (SVC_ENCRYPTION_KEYS):
// 1. Encrypted read: GET /items/<c>/<id> of one item with 3 sealed pii fields, against the same read
//    of an item whose 3 pii fields hold values written before the fields were classed pii (never
//    sealed: the same route, permissions, masking and access log, without the value store and AES).
//    autocannon, alternated over the rounds; median req/s, service and database CPU per request.
//    Target: the sealed read costs at most 15 % more.
// 2. Erasure of one subject spread over 10,000 events (--records records × --updates PATCHes each),
//    matched by its (sealed) email: request, confirm by a second administrator, execute, timed.
//    Target: under 30 s.
// 3. Rewrap of --values sealed values after a rotation, in bounded calls (--batch); the service is
//    killed (SIGKILL) midway and a new one finishes. Checks no value is left on the retired key and
//    values still read. Figures: ms per call, values per second.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { backendsCpuMs, cpuMs } from './support/processCpu.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

const usage = `usage: npm run bench -- privacy [--duration 10] [--warmup 3] [--rounds 3] [--connections 10] [--records 100] [--updates 99] [--values 100000] [--batch 5000]
  --duration, --warmup, --rounds, --connections   the encrypted-read comparison (seconds per round, alternated)
  --records, --updates   the erased subject: records with its email, PATCHes of each (records × (1 + updates) events)
  --values, --batch      sealed values to rewrap after a rotation, values per rewrap call
  --parts                which parts to run (default read,erasure,rewrap)`;

const SITE = 'privbench';
const TARGET = { readOverhead: 0.15, erasureMs: 30_000 };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const round2 = (value: number) => Math.round(value * 100) / 100;

type Call = <T = { data: Record<string, unknown> }>(method: string, path: string, body?: unknown) => Promise<T>;
function caller(base: string, token: string): Call {
  return async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': SITE, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 1_000)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}

const PERSON_FIELDS = ['email', 'phone', 'address'];

async function createPeople(call: Call, collection: string, sensitivity: 'pii' | null): Promise<void> {
  await call('POST', '/collections', { name: collection });
  for (const field of PERSON_FIELDS) await call('POST', `/fields/${collection}`, { field, type: 'string', sensitivity });
  await call('POST', `/fields/${collection}`, { field: 'name', type: 'string' });
}

interface ReadRound {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  nodeCpuMsPerRequest: number | null;
  dbCpuMsPerRequest: number | null;
}

async function encryptedRead(args: { base: string; token: string; child: ReturnType<typeof startBenchService>; owner: pg.Client; database: string; duration: number; warmup: number; rounds: number; connections: number }) {
  const call = caller(args.base, args.token);
  await createPeople(call, 'sealed_people', 'pii');
  await createPeople(call, 'legacy_people', null);
  const person = { name: 'Ada Lovelace', email: 'ada@example.test', phone: '+44 20 7946 0000', address: '12 St James Square, London' };
  const sealed = await call<{ data: { id: string } }>('POST', '/items/sealed_people', person);
  const legacy = await call<{ data: { id: string } }>('POST', '/items/legacy_people', person);
  // Values written before the fields became pii stay as written: the same read, nothing to open.
  for (const field of PERSON_FIELDS) await call('PATCH', `/fields/legacy_people/${field}`, { sensitivity: 'pii' });
  const stored = await args.owner.query<{ collection: string; email: string }>(
    `SELECT collection, data->>'email' AS email FROM items WHERE site_id = $1 AND collection IN ('sealed_people', 'legacy_people')`,
    [SITE],
  );
  for (const row of stored.rows) {
    const isSealed = row.email.startsWith('svc:sealed:');
    if (isSealed !== (row.collection === 'sealed_people')) throw new Error(`${row.collection} stores ${row.email}`);
  }
  for (const [collection, id] of [['sealed_people', sealed.data.id], ['legacy_people', legacy.data.id]] as const) {
    const read = await call<{ data: Record<string, unknown> }>('GET', `/items/${collection}/${id}`);
    if (read.data.email !== person.email) throw new Error(`${collection} reads ${JSON.stringify(read.data)}`);
  }
  await waitForAsyncProjections(args.owner, { quiet: true });
  const origin = args.base.replace('/api/v1', '');
  const headers = { authorization: `Bearer ${args.token}`, 'x-svc-site': SITE };
  const scenarios = {
    sealed: { headers, requests: [{ method: 'GET', path: `/api/v1/items/sealed_people/${sealed.data.id}` }] },
    unsealed: { headers, requests: [{ method: 'GET', path: `/api/v1/items/legacy_people/${legacy.data.id}` }] },
  };
  for (const options of Object.values(scenarios)) await autocannon({ url: origin, connections: args.connections, duration: args.warmup, ...options });
  const rounds: Record<keyof typeof scenarios, ReadRound[]> = { sealed: [], unsealed: [] };
  for (let round = 1; round <= args.rounds; round += 1) {
    for (const [name, options] of Object.entries(scenarios) as [keyof typeof scenarios, Record<string, unknown>][]) {
      const nodeBefore = cpuMs(args.child.pid);
      const dbBefore = await backendsCpuMs(args.owner, args.database);
      const result = await autocannon({ url: origin, connections: args.connections, duration: args.duration, ...options });
      const nodeAfter = cpuMs(args.child.pid);
      const dbAfter = await backendsCpuMs(args.owner, args.database);
      if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
      const total = Math.max(1, result.requests.total);
      let dbMs: number | null = null;
      if (dbBefore && dbAfter) {
        dbMs = 0;
        for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
      }
      const figure: ReadRound = {
        requestsPerSecond: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        nodeCpuMsPerRequest: nodeBefore === null || nodeAfter === null ? null : round2((nodeAfter - nodeBefore) / total),
        dbCpuMsPerRequest: dbMs === null ? null : round2(dbMs / total),
      };
      rounds[name].push(figure);
      console.log(`round ${round} ${name.padEnd(9)} ${String(figure.requestsPerSecond).padStart(6)} req/s  p50 ${figure.p50} ms  service CPU ${figure.nodeCpuMsPerRequest ?? '?'} ms/req  db CPU ${figure.dbCpuMsPerRequest ?? '?'} ms/req`);
    }
  }
  const rps = (name: keyof typeof scenarios) => median(rounds[name].map((figure) => figure.requestsPerSecond));
  const cpu = (name: keyof typeof scenarios) => {
    const values = rounds[name].map((figure) => (figure.nodeCpuMsPerRequest ?? 0) + (figure.dbCpuMsPerRequest ?? 0));
    return round2(median(values));
  };
  const overhead = round2((rps('unsealed') / rps('sealed') - 1) * 100);
  const cpuOverhead = round2((cpu('sealed') / cpu('unsealed') - 1) * 100);
  return {
    sealed: { requestsPerSecond: rps('sealed'), cpuMsPerRequest: cpu('sealed'), rounds: rounds.sealed },
    unsealed: { requestsPerSecond: rps('unsealed'), cpuMsPerRequest: cpu('unsealed'), rounds: rounds.unsealed },
    throughputOverheadPercent: overhead,
    cpuOverheadPercent: cpuOverhead,
    target: `at most ${TARGET.readOverhead * 100} % more`,
    met: overhead <= TARGET.readOverhead * 100,
  };
}

/** Runs `work` over `items` with `concurrency` workers. */
async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** A second administrator of the site (same role as the first), signed in: dual control needs two. */
async function secondAdministrator(base: string, call: Call, adminUserId: string): Promise<Call> {
  const admin = await call<{ data: { roleId: string } }>('GET', `/users/${adminUserId}`);
  const email = `second-admin@${SITE}.bench`;
  const password = 'second admin password 0123456789';
  await call('POST', '/users', { email, password, roleId: admin.data.roleId, firstName: 'Second', lastName: 'Admin' });
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'x-svc-site': SITE, 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!login.ok) throw new Error(`second administrator login: ${login.status} ${await login.text()}`);
  return caller(base, ((await login.json()) as { data: { token: string } }).data.token);
}

async function erasure(args: { base: string; token: string; userId: string; owner: pg.Client; records: number; updates: number }) {
  const call = caller(args.base, args.token);
  const second = await secondAdministrator(args.base, call, args.userId);
  await createPeople(call, 'customers', 'pii');
  const subject = `subject-${Date.now()}@example.test`;
  const seedStarted = performance.now();
  const created = await call<{ data: { id: string }[] }>(
    'POST',
    '/items/customers',
    Array.from({ length: args.records }, (_, index) => ({ name: `Order ${index}`, email: subject, phone: `+1 555 ${String(index).padStart(4, '0')}`, address: `${index} Main St` })),
  );
  const patches = created.data.flatMap((item) => Array.from({ length: args.updates }, (_, update) => ({ id: item.id, update })));
  await inParallel(patches, 8, async ({ id, update }) => {
    await call('PATCH', `/items/customers/${id}`, { address: `${update} Side St`, name: `Order update ${update}` });
  });
  // Bystanders: records of other people in the same collection stay.
  await call('POST', '/items/customers', Array.from({ length: 50 }, (_, index) => ({ name: `Other ${index}`, email: `other-${index}@example.test` })));
  const seedMs = Math.round(performance.now() - seedStarted);
  const [events] = (
    await args.owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE site_id = $1 AND stream_id = ANY($2::text[])`, [
      SITE,
      created.data.map((item) => `${SITE}/item/customers/${item.id}`),
    ])
  ).rows;
  await waitForAsyncProjections(args.owner, { quiet: true });

  const started = performance.now();
  // Requested by one administrator, confirmed by another (dual control), executed.
  const requested = await call<{ data: { id: string; matchedCount: number } }>('POST', '/admin/erasure', {
    collection: 'customers',
    filter: { email: { _eq: subject } },
    reason: 'Benchmark: erasure of one subject',
  });
  const requestMs = Math.round(performance.now() - started);
  await second('POST', `/admin/erasure/${requested.data.id}/confirm`);
  const executeStarted = performance.now();
  const executed = await call<{ data: { recordCount: number; shreddedValues: number } }>('POST', `/admin/erasure/${requested.data.id}/execute`);
  const executeMs = Math.round(performance.now() - executeStarted);
  const totalMs = Math.round(performance.now() - started);
  if (requested.data.matchedCount !== args.records || executed.data.recordCount !== args.records) {
    throw new Error(`matched ${requested.data.matchedCount}, erased ${executed.data.recordCount}, expected ${args.records}`);
  }
  const left = await args.owner.query(`SELECT 1 FROM sensitive_values WHERE site_id = $1 AND collection = 'customers' AND item_id = ANY($2::text[]) LIMIT 1`, [
    SITE,
    created.data.map((item) => item.id),
  ]);
  if (left.rows.length > 0) throw new Error('sealed values of erased records are left');
  const stays = await call<{ data: unknown[] }>('GET', '/items/customers?limit=100');
  if (stays.data.length !== 50) throw new Error(`${stays.data.length} bystanders left, not 50`);
  return {
    records: args.records,
    events: events?.n ?? 0,
    shreddedValues: executed.data.shreddedValues,
    seedMs,
    requestMs,
    executeMs,
    totalMs,
    target: `under ${TARGET.erasureMs / 1000} s`,
    met: totalMs < TARGET.erasureMs,
  };
}

async function rewrap(args: { databaseUrl: string; environment: Record<string, string>; owner: pg.Client; values: number; batch: number }) {
  const start = async () => {
    const port = 26_000 + Math.floor(Math.random() * 2_000);
    const child = startBenchService(args.databaseUrl, port, args.environment);
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHealth(base, child);
    return { child, base, call: caller(base, (await prepareSite(base, SITE, true)).token) };
  };
  let service = await start();
  await createPeople(service.call, 'patients', 'pii');
  const items = Math.ceil(args.values / PERSON_FIELDS.length);
  const seedStarted = performance.now();
  for (let from = 0; from < items; from += 500) {
    const bodies = Array.from({ length: Math.min(500, items - from) }, (_, index) => ({
      name: `Patient ${from + index}`,
      email: `patient-${from + index}@example.test`,
      phone: `+1 555 ${from + index}`,
      address: `${from + index} Hospital Road`,
    }));
    await service.call('POST', '/items/patients', bodies);
  }
  const seedMs = Math.round(performance.now() - seedStarted);
  const onKey = async (keyId: string) =>
    (await args.owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM sensitive_values WHERE site_id = $1 AND key_id = $2`, [SITE, keyId])).rows[0]!.n;
  const sealedValues = await onKey('k1');
  await service.call('POST', '/admin/encryption/keys/rotate', { keyId: 'k2' });
  const calls: number[] = [];
  let restartedAfter: number | null = null;
  let done = false;
  const started = performance.now();
  while (!done) {
    if (restartedAfter === null && calls.length > 0 && (await onKey('k1')) <= sealedValues / 2) {
      // Killed in the middle of a call: its transaction rolls back, the next service goes on from the data.
      const pending = service.call('POST', '/admin/encryption/keys/rewrap', { limit: args.batch }).catch(() => null);
      await new Promise((resolve) => setTimeout(resolve, 20));
      service.child.kill('SIGKILL');
      await pending;
      restartedAfter = calls.length;
      service = await start();
      continue;
    }
    const callStarted = performance.now();
    const progress = await service.call<{ data: { processed: number; remaining: number; done: boolean } }>('POST', '/admin/encryption/keys/rewrap', { limit: args.batch });
    calls.push(Math.round(performance.now() - callStarted));
    done = progress.data.done;
  }
  const totalMs = Math.round(performance.now() - started);
  const left = await onKey('k1');
  const sample = await service.call<{ data: { email: string }[] }>('GET', '/items/patients?limit=5&sort=name');
  await stopBenchService(service.child);
  if (left !== 0) throw new Error(`${left} values left on the retired key`);
  if (!sample.data.every((item) => item.email.startsWith('patient-'))) throw new Error(`values read ${JSON.stringify(sample.data)}`);
  return {
    values: sealedValues,
    seedMs,
    batch: args.batch,
    calls: calls.length,
    restartedAfterCall: restartedAfter,
    medianCallMs: median(calls),
    worstCallMs: Math.max(...calls),
    totalMs,
    valuesPerSecond: Math.round(sealedValues / (totalMs / 1000)),
    leftOnRetiredKey: left,
  };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      records: { type: 'string' },
      updates: { type: 'string' },
      values: { type: 'string' },
      batch: { type: 'string' },
      parts: { type: 'string' },
    },
  });
  const parts = new Set((values.parts ?? 'read,erasure,rewrap').split(','));
  const option = (name: keyof typeof values, fallback: number) => (values[name] === undefined ? fallback : positiveInteger(values[name], name, usage));
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_privacy_${Date.now().toString(36)}`);
  await migrate(scratch.url);
  const owner = new pg.Client({ connectionString: scratch.url });
  await owner.connect();
  const environment = { SVC_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')},k2:${randomBytes(32).toString('base64')}`, SVC_ACCESS_TOKEN_TTL: '86400' };
  const results: Record<string, unknown> = { machine: { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version } };
  try {
    const port = 24_000 + Math.floor(Math.random() * 2_000);
    const child = startBenchService(scratch.url, port, environment);
    const base = `http://127.0.0.1:${port}/api/v1`;
    try {
      await waitForHealth(base, child);
      const { token, userId } = await prepareSite(base, SITE, false);
      if (parts.has('read')) results.encryptedRead = await encryptedRead({
        base,
        token,
        child,
        owner,
        database: scratch.name,
        duration: option('duration', 10),
        warmup: option('warmup', 3),
        rounds: option('rounds', 3),
        connections: option('connections', 10),
      });
      console.log(JSON.stringify({ encryptedRead: results.encryptedRead }, null, 2));
      if (parts.has('erasure')) results.erasure = await erasure({ base, token, userId, owner, records: option('records', 100), updates: option('updates', 99) });
      console.log(JSON.stringify({ erasure: results.erasure }, null, 2));
    } finally {
      await stopBenchService(child);
    }
    if (parts.has('rewrap')) results.rewrap = await rewrap({ databaseUrl: scratch.url, environment, owner, values: option('values', 100_000), batch: option('batch', 5_000) });
    console.log(JSON.stringify({ rewrap: results.rewrap }, null, 2));
  } finally {
    await owner.end();
    await scratch.drop();
  }
  const at = new Date().toISOString();
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `privacy-${at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ at, ...results }, null, 2)}\n`);
  console.log(`written to ${file}`);
}
