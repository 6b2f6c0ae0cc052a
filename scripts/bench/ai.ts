// `npm run bench -- ai`: what a skill call adds to the read it makes (issue #33's figure: the built-in
// parser plus a read skill adds under 5 ms to the underlying read). On the same items of a scratch
// site, closed loop (each worker sends its next request when the last is answered), it times:
//   read: GET /items/articles/:id, the underlying read;
//   chat: POST /ai/chat { message: "show article <id>" }, the copilot (built-in intent parser, the
//         skill runner, items.read, the conversation it records);
//   mcp:  POST /mcp tools/call items.read, the MCP endpoint (a stateless server per request, the
//         skill runner, items.read).
// The scenarios alternate in rounds so that drift (caches, autovacuum, the projection daemon) falls
// on all of them alike. Prints p50/p99 per scenario and each one's difference to the read, and writes
// them to bench-results/ai-<timestamp>.json.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { percentile } from './support/percentile.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const TARGET_OVERHEAD_MS = 5;
const SCENARIOS = ['read', 'chat', 'mcp'] as const;
type Scenario = (typeof SCENARIOS)[number];

const usage = `usage: npm run bench -- ai [--items 1000] [--requests 2000] [--round 100] [--concurrency 1] [--warmup 200] [--scenarios read,chat,mcp] [--keep]
  --items        articles seeded (default 1000); each request reads one at random
  --requests     timed requests per scenario (default 2000)
  --round        requests per scenario before the next scenario's turn (default 100)
  --concurrency  requests in flight per scenario, closed loop (default 1: the latency of one caller)
  --warmup       untimed requests per scenario first (default 200)
  --scenarios    which to time (default read,chat,mcp; read is always timed: the others are compared to it)
  --keep         keep the scratch database (prints its name)`;

interface Target {
  base: string;
  headers: Record<string, string>;
}

type Request = (id: string) => Promise<void>;

/** What the checks read of an answer: an envelope's `data`, or a JSON-RPC `result`. */
interface Answer {
  data?: { id?: string; status?: string };
  result?: { structuredContent?: { status?: string } };
}

async function expectOk(response: Response, what: string, check?: (body: Answer) => boolean): Promise<void> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text.slice(0, 500)}`);
  if (check && !check(JSON.parse(text) as Answer)) throw new Error(`${what}: unexpected answer ${text.slice(0, 500)}`);
}

function requests(target: Target): Record<Scenario, Request> {
  const { base, headers } = target;
  let rpcId = 0;
  return {
    read: async (id) => expectOk(await fetch(`${base}/items/articles/${id}`, { headers }), 'GET /items/articles/:id', (body) => body.data?.id === id),
    chat: async (id) =>
      expectOk(
        await fetch(`${base}/ai/chat`, { method: 'POST', headers, body: JSON.stringify({ message: `show article ${id}` }) }),
        'POST /ai/chat',
        (body) => body.data?.status === 'executed',
      ),
    mcp: async (id) =>
      expectOk(
        await fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { ...headers, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name: 'items.read', arguments: { collection: 'articles', id } } }),
        }),
        'POST /mcp tools/call',
        (body) => body.result?.structuredContent?.status === 'executed',
      ),
  };
}

/** `count` requests, `concurrency` at a time, each worker sending its next when the last is answered; the latency of each, in ms. */
async function closedLoop(request: Request, ids: readonly string[], count: number, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let issued = 0;
  const worker = async () => {
    while (issued < count) {
      issued += 1;
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const started = performance.now();
      await request(id);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return latencies;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

async function seed(target: Target, items: number): Promise<string[]> {
  const { base, headers } = target;
  await expectOk(
    await fetch(`${base}/collections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'articles', fields: [{ field: 'title', type: 'string' }, { field: 'body', type: 'text' }, { field: 'status', type: 'string' }] }),
    }),
    'POST /collections',
  );
  const ids: string[] = [];
  for (let next = 0; next < items; next += 500) {
    const batch = Array.from({ length: Math.min(500, items - next) }, (_, index) => ({
      title: `Article ${next + index + 1}`,
      body: 'lorem ipsum dolor sit amet '.repeat(20),
      status: 'published',
    }));
    const response = await fetch(`${base}/items/articles`, { method: 'POST', headers, body: JSON.stringify(batch) });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`seeding: ${response.status} ${text.slice(0, 500)}`);
    ids.push(...(JSON.parse(text) as { data: { id: string }[] }).data.map((item) => item.id));
  }
  return ids;
}

interface Figures {
  scenario: Scenario;
  requests: number;
  p50: number;
  p99: number;
  deltaP50VsRead: number | null;
  deltaP99VsRead: number | null;
}

function figuresOf(latencies: Record<Scenario, number[]>, timed: readonly Scenario[]): Figures[] {
  const sorted = Object.fromEntries(timed.map((name) => [name, [...latencies[name]].sort((a, b) => a - b)])) as Record<Scenario, number[]>;
  const p = (name: Scenario, at: number) => percentile(sorted[name], at);
  return timed.map((name) => ({
    scenario: name,
    requests: sorted[name].length,
    p50: round2(p(name, 50)),
    p99: round2(p(name, 99)),
    deltaP50VsRead: name === 'read' ? null : round2(p(name, 50) - p('read', 50)),
    deltaP99VsRead: name === 'read' ? null : round2(p(name, 99) - p('read', 99)),
  }));
}

function report(figures: Figures[], concurrency: number): void {
  console.log(`\nlatency in ms, closed loop, concurrency ${concurrency}:`);
  console.table(
    figures.map((row) => ({ scenario: row.scenario, requests: row.requests, p50: row.p50, p99: row.p99, 'Δp50 vs read': row.deltaP50VsRead ?? '', 'Δp99 vs read': row.deltaP99VsRead ?? '' })),
  );
  const chat = figures.find((row) => row.scenario === 'chat');
  if (chat) {
    const overhead = chat.deltaP50VsRead!;
    console.log(`skill dispatch overhead (chat p50 − read p50): ${overhead} ms; target under ${TARGET_OVERHEAD_MS} ms: ${overhead < TARGET_OVERHEAD_MS ? 'met' : 'MISSED'}`);
  }
  const mcp = figures.find((row) => row.scenario === 'mcp');
  if (mcp) console.log(`MCP tools/call overhead (mcp p50 − read p50): ${mcp.deltaP50VsRead} ms`);
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '1000' },
      requests: { type: 'string', default: '2000' },
      round: { type: 'string', default: '100' },
      concurrency: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '200' },
      scenarios: { type: 'string', default: SCENARIOS.join(',') },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const items = positiveInteger(values.items, 'items', usage);
  const total = positiveInteger(values.requests, 'requests', usage);
  const roundSize = positiveInteger(values.round, 'round', usage);
  const concurrency = positiveInteger(values.concurrency, 'concurrency', usage);
  const warmup = positiveInteger(values.warmup, 'warmup', usage);
  const asked = values.scenarios!.split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}\n${usage}`);
  const timed = SCENARIOS.filter((name) => name === 'read' || asked.includes(name));

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_ai_${Date.now().toString(36)}`);
  let child: ChildProcess | null = null;
  const owner = new pg.Client({ connectionString: scratch.url });
  try {
    await migrate(scratch.url);
    await owner.connect();
    const port = 20_000 + Math.floor(Math.random() * 2_000);
    child = startBenchService(scratch.url, port, { SVC_ACCESS_TOKEN_TTL: '86400', SVC_MCP_ENABLED: 'true', SVC_RATE_LIMIT_AI_CHAT: '0' });
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHealth(base, child);
    const siteId = 'bench-ai';
    const session = await prepareSite(base, siteId, false);
    const target: Target = { base, headers: { authorization: `Bearer ${session.token}`, 'x-svc-site': siteId, 'content-type': 'application/json' } };
    const ids = await seed(target, items);
    await waitForAsyncProjections(owner);
    console.log(`${ids.length} articles seeded; ${total} timed requests per scenario (${timed.join(', ')}), rounds of ${roundSize}, concurrency ${concurrency}`);

    const send = requests(target);
    for (const name of timed) await closedLoop(send[name], ids, warmup, concurrency);
    const latencies: Record<Scenario, number[]> = { read: [], chat: [], mcp: [] };
    for (let done = 0; done < total; done += roundSize) {
      for (const name of timed) latencies[name].push(...(await closedLoop(send[name], ids, Math.min(roundSize, total - done), concurrency)));
      // The chat's conversation events go through the async read models between rounds, not during the next.
      await waitForAsyncProjections(owner, { quiet: true });
    }
    const figures = figuresOf(latencies, timed);
    report(figures, concurrency);
    const at = new Date().toISOString();
    const result = { benchmark: 'ai', at, cpus: cpus().length, items: ids.length, requestsPerScenario: total, round: roundSize, concurrency, targetOverheadMs: TARGET_OVERHEAD_MS, figures };
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `ai-${at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    if (child) await stopBenchService(child);
    await owner.end().catch(() => {});
    if (values.keep) console.log(`kept the scratch database ${scratch.name}`);
    else await scratch.drop();
  }
}
