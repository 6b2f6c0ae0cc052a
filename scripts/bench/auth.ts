// What authorization costs an item read: requests/second of GET /items/:collection/:id for a member
// whose role allows reading only published articles and only some fields (a row condition and a
// field list, applied by src/access), against the same read by an administrator (no rules), for
// each kind of credential: a login JWT, an API key, and an external identity provider's JWT.
// The budget: at most 15% fewer requests/second than the administrator with the same credential.
//
// The service runs as a child process (`svc start`, LOG_LEVEL=warn, rate limits off) on
// a scratch database of DATABASE_URL's server; a local JWKS server plays the identity provider.
// Each round measures, per credential, the administrator and the member back to back; the cost is
// the median over rounds of 1 - member/admin, so that drift and outside load hit both sides alike.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { accessFor } from '../../src/access/access.ts';
import { assertCan, assertReadableQuery, itemReadPermissions } from '../../src/access/itemAccess.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { startIssuerServer } from '../../test/modules/identity/support/issuerServer.ts';
import { BENCH_INSTANCE_TOKEN, startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { createInProcessContext } from './support/inProcessContext.ts';
import { ITEMS_TABLE } from '../../src/query/index.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const INSTANCE_TOKEN = BENCH_INSTANCE_TOKEN;
const AUDIENCE = 'svc-bench';
const SITE = 'authbench';
const MAX_COST = 0.15;
const CREDENTIALS = ['jwt', 'apiKey', 'external'] as const;

const usage = `usage: npm run bench -- auth [--duration 3] [--rounds 5] [--connections 16] [--items 1000]
  --duration     seconds per measured run (after a 2 s warm-up per scenario)
  --rounds       rounds of admin/member pairs per credential; the cost is the median pair
  --connections  concurrent HTTP connections
  --items        articles seeded (half of them published)`;


function startService(databaseUrl: string, port: number): ChildProcess {
  return startBenchService(databaseUrl, port, {
    // Not production only because a trusted issuer must then be https, and the local JWKS server is
    // plain http; nothing on the measured path depends on it.
    NODE_ENV: 'development',
    SVC_ISSUER_ALLOW_PRIVATE: 'true',
    SVC_ACCESS_TOKEN_TTL: '7200',
  });
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      items: { type: 'string', default: '1000' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const duration = positiveInteger(values.duration, 'duration', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const itemCount = positiveInteger(values.items, 'items', usage);
  const serverUrl = scratchServerUrl();

  const scratch = await createScratchDatabase(serverUrl, `svc_bench_auth_${Date.now().toString(36)}`);
  const databaseUrl = new URL(scratch.url);
  await migrate(scratch.url);

  const idp = await startIssuerServer(AUDIENCE);
  const signingKey = await idp.createKey('ES256', 'bench-1');
  idp.publish(signingKey);
  const port = 20_000 + Math.floor(Math.random() * 2_000);
  const child = startService(databaseUrl.toString(), port);
  const base = `http://127.0.0.1:${port}/api/v1`;
  try {
    await waitForHealth(base, child);
    const setup = await prepare(base, itemCount, idp, signingKey);
    let cursor = 0;
    const nextPath = () => `/api/v1/items/articles/${setup.publishedIds[cursor++ % setup.publishedIds.length]}`;
    const scenarios: { name: string; credential: string; principal: 'admin' | 'member'; token: string }[] = [
      { name: 'admin JWT', credential: 'jwt', principal: 'admin', token: setup.adminJwt },
      { name: 'member JWT', credential: 'jwt', principal: 'member', token: setup.memberJwt },
      { name: 'admin API key', credential: 'apiKey', principal: 'admin', token: setup.adminApiKey },
      { name: 'member API key', credential: 'apiKey', principal: 'member', token: setup.memberApiKey },
      { name: 'admin external JWT', credential: 'external', principal: 'admin', token: setup.adminExternalJwt },
      { name: 'member external JWT', credential: 'external', principal: 'member', token: setup.memberExternalJwt },
    ];
    for (const scenario of scenarios) {
      // Every credential must read the item: a 403 or 404 here would measure the wrong thing.
      const check = await fetch(`${base.replace('/api/v1', '')}${nextPath()}`, { headers: { authorization: `Bearer ${scenario.token}`, 'x-svc-site': SITE } });
      const body = (await check.json()) as { data?: Record<string, unknown> };
      if (check.status !== 200) throw new Error(`${scenario.name}: GET answered ${check.status} ${JSON.stringify(body)}`);
      console.log(`${scenario.name.padEnd(20)} sees ${Object.keys(body.data ?? {}).join(',')}`);
    }

    const runs = new Map<string, { requestsPerSecond: number; p50: number; p99: number; non2xx: number; errors: number }[]>();
    const measure = async (scenario: (typeof scenarios)[number], seconds: number) => {
      const result = await autocannon({
        url: base.replace('/api/v1', ''),
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${scenario.token}`, 'x-svc-site': SITE },
        requests: [{ method: 'GET', setupRequest: (request: AutocannonRequest) => ({ ...request, path: nextPath() }) }],
      });
      return {
        requestsPerSecond: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      };
    };
    for (const scenario of scenarios) await measure(scenario, 2);
    // Pairs: the administrator's and the member's run of one credential back to back (order
    // alternating), so that load from outside the benchmark hits both alike; the cost is the
    // median of the per-pair ratios.
    const pairRatios = new Map<string, number[]>();
    for (let round = 1; round <= rounds; round += 1) {
      for (const credential of CREDENTIALS) {
        const pair = scenarios.filter((scenario) => scenario.credential === credential);
        const ordered = round % 2 === 1 ? pair : [...pair].reverse();
        const results = new Map<string, Awaited<ReturnType<typeof measure>>>();
        for (const scenario of ordered) {
          const summary = await measure(scenario, duration);
          results.set(scenario.principal, summary);
          runs.set(scenario.name, [...(runs.get(scenario.name) ?? []), summary]);
          console.log(
            `round ${round} ${scenario.name.padEnd(20)} ${String(summary.requestsPerSecond).padStart(6)} req/s  p50 ${summary.p50} ms  p99 ${summary.p99} ms  non-2xx ${summary.non2xx}  errors ${summary.errors}`,
          );
        }
        const ratio = results.get('member')!.requestsPerSecond / results.get('admin')!.requestsPerSecond;
        pairRatios.set(credential, [...(pairRatios.get(credential) ?? []), ratio]);
      }
    }

    const middle = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
    };
    const comparisons = CREDENTIALS.map((credential) => {
      const of = (principal: string) => runs.get(scenarios.find((s) => s.credential === credential && s.principal === principal)!.name) ?? [];
      const cost = 1 - middle(pairRatios.get(credential) ?? []);
      return {
        credential,
        adminRequestsPerSecond: Math.round(middle(of('admin').map((run) => run.requestsPerSecond))),
        memberRequestsPerSecond: Math.round(middle(of('member').map((run) => run.requestsPerSecond))),
        pairRatios: (pairRatios.get(credential) ?? []).map((ratio) => Math.round(ratio * 1000) / 1000),
        authorizationCost: Math.round(cost * 1000) / 10,
        withinBudget: cost <= MAX_COST,
        memberP99Ms: middle(of('member').map((run) => run.p99)),
        adminP99Ms: middle(of('admin').map((run) => run.p99)),
      };
    });
    const inProcess = await measureInProcess(databaseUrl.toString(), setup);
    const adminJwtRps = comparisons[0]!.adminRequestsPerSecond;
    // The event loop serves one request at a time: at R requests/s a request holds it ~1e6/R µs.
    const loopShare = Math.round(((inProcess.memberMicroseconds - inProcess.adminMicroseconds) * adminJwtRps) / 100) / 100;
    console.log(
      `\nin process: authorizing one read costs ${inProcess.memberMicroseconds} µs for the member, ${inProcess.adminMicroseconds} µs for the administrator` +
        ` (${loopShare}% of a request's event-loop time at ${adminJwtRps} req/s)`,
    );
    console.log('\ncredential   admin req/s  member req/s  cost (median pair)  (budget 15%)');
    for (const row of comparisons) {
      console.log(
        `${row.credential.padEnd(12)} ${String(row.adminRequestsPerSecond).padStart(11)}  ${String(row.memberRequestsPerSecond).padStart(12)}  ${String(row.authorizationCost).padStart(4)}%  ${row.withinBudget ? 'ok' : 'OVER BUDGET'}`,
      );
    }
    const report = {
      benchmark: 'auth',
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      request: 'GET /api/v1/items/articles/:id',
      memberRule: setup.rule,
      articles: itemCount,
      connections,
      durationSeconds: duration,
      rounds,
      budget: `member throughput at least ${(1 - MAX_COST) * 100}% of the administrator's with the same credential`,
      comparisons,
      inProcess: { ...inProcess, shareOfRequestAtAdminJwtRate: `${loopShare}%` },
      runs: Object.fromEntries(runs),
    };
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `auth-${report.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    await stopBenchService(child);
    await idp.close();
    await scratch.drop();
  }
}

/**
 * The authorization work of one member read, timed in this process against the same database with
 * warm caches (what src/access adds to GET /items/:c/:id: the access lookup, the collection and
 * query checks, the row condition and the visible fields), next to an administrator's. Independent
 * of HTTP and machine noise.
 */
async function measureInProcess(databaseUrl: string, setup: Setup): Promise<{ memberMicroseconds: number; adminMicroseconds: number; iterations: number }> {
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 2 });
  const { context, close } = await createInProcessContext(database, []);
  const base = { kind: 'user' as const, sessionId: null, via: 'session' as const, realm: 'studio' as const };
  const member: Principal = { ...base, userId: setup.memberId, roleId: setup.roleId, admin: false };
  const admin: Principal = { ...base, userId: setup.adminId, roleId: setup.adminRoleId, admin: true };
  const authorize = async (principal: Principal) => {
    const access = await accessFor(context, SITE, principal);
    if (access.admin) return;
    assertCan(access, 'read', 'articles');
    assertReadableQuery(access, await context.schemas.site(SITE), 'articles', { filter: null, sort: [], deep: {} });
    const permissions = itemReadPermissions(access)!;
    permissions.rowCondition('articles', 'i', ITEMS_TABLE);
    permissions.visibleFields('articles');
  };
  const iterations = 50_000;
  const time = async (principal: Principal) => {
    for (let i = 0; i < 1_000; i += 1) await authorize(principal);
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) await authorize(principal);
    return Math.round(Number(process.hrtime.bigint() - started) / iterations / 10) / 100;
  };
  try {
    const adminMicroseconds = await time(admin);
    const memberMicroseconds = await time(member);
    return { memberMicroseconds, adminMicroseconds, iterations };
  } finally {
    await close();
    await database.close();
  }
}

interface Setup {
  memberId: string;
  roleId: string;
  adminId: string;
  adminRoleId: string;
  publishedIds: string[];
  rule: Record<string, unknown>;
  adminJwt: string;
  memberJwt: string;
  adminApiKey: string;
  memberApiKey: string;
  adminExternalJwt: string;
  memberExternalJwt: string;
}

async function prepare(base: string, itemCount: number, idp: Awaited<ReturnType<typeof startIssuerServer>>, key: Awaited<ReturnType<Awaited<ReturnType<typeof startIssuerServer>>['createKey']>>): Promise<Setup> {
  const adminEmail = `admin@${SITE}.bench`;
  const password = 'bench password 0123456789';
  const created = await fetch(`${base}/instance/sites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INSTANCE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: SITE, adminEmail, adminPassword: password }),
  });
  if (created.status !== 201) throw new Error(`site creation failed: ${created.status} ${await created.text()}`);
  const login = async (email: string) => {
    const response = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'x-svc-site': SITE, 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    if (!response.ok) throw new Error(`login failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { token: string; user: { id: string } } }).data;
  };
  const adminLogin = await login(adminEmail);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminLogin.token}`, 'x-svc-site': SITE, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : { data: null }) as { data: Record<string, unknown> & { key?: string } };
  };

  await call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'body', type: 'text' },
      { field: 'views', type: 'integer' },
      { field: 'category', type: 'string' },
    ],
  });
  const publishedIds: string[] = [];
  for (let next = 0; next < itemCount; next += 500) {
    const batch = Array.from({ length: Math.min(500, itemCount - next) }, (_, offset) => {
      const i = next + offset;
      return { title: `Article ${i}`, body: `Body of article ${i} `.repeat(20), views: i, category: i % 3 === 0 ? 'news' : 'tech', status: i % 2 === 0 ? 'published' : 'draft' };
    });
    const items = (await call('POST', '/items/articles', batch)).data as unknown as { id: string; status: string }[];
    for (const item of items) if (item.status === 'published') publishedIds.push(item.id);
  }

  const role = (await call('POST', '/roles', { name: 'Readers' })).data as unknown as { id: string };
  const rule = { collection: 'articles', action: 'read', fields: ['id', 'title', 'status', 'views'], conditions: { status: { _eq: 'published' } } };
  const policy = (await call('POST', '/policies', { name: 'Read published articles' })).data as unknown as { id: string };
  await call('POST', `/policies/${policy.id}/permissions`, rule);
  await call('POST', `/policies/${policy.id}/attach`, { roleId: role.id });
  const memberEmail = `reader@${SITE}.bench`;
  const member = (await call('POST', '/users', { email: memberEmail, password, roleId: role.id })).data as unknown as { id: string };
  const memberLogin = await login(memberEmail);
  const adminApiKey = (await call('POST', '/api-keys', { name: 'admin key', userId: adminLogin.user.id })).data.key as string;
  const memberApiKey = (await call('POST', '/api-keys', { name: 'reader key', userId: member.id })).data.key as string;

  await call('POST', '/admin/auth/issuers', {
    issuer: idp.issuer,
    jwksUri: idp.jwksUri,
    audience: AUDIENCE,
    algorithms: ['ES256'],
    roleMapping: { reader: { roleId: role.id }, boss: { systemKey: 'admin' } },
    jitProvisioning: true,
  });
  const externalToken = (subject: string, roles: string[]) =>
    idp.sign(key, { sub: subject, email: `${subject}@${SITE}.bench`, roles }, { expiresIn: '2h' });
  const adminRoleId = ((await call('GET', `/users/${adminLogin.user.id}`)).data as { roleId: string }).roleId;
  return {
    memberId: member.id,
    roleId: role.id,
    adminId: adminLogin.user.id,
    adminRoleId,
    publishedIds,
    rule,
    adminJwt: adminLogin.token,
    memberJwt: memberLogin.token,
    adminApiKey,
    memberApiKey,
    adminExternalJwt: await externalToken('external-admin', ['boss']),
    memberExternalJwt: await externalToken('external-reader', ['reader']),
  };
}

