// Change feed, realtime and webhook figures. The service runs as a child process (`svc start`,
// LOG_LEVEL=warn, rate limits off) on a scratch database of DATABASE_URL's server; the WebSocket
// clients, the writer and the webhook receiver run here, on the same clock.
//   realtime: commit → WebSocket event frame (p50/p99) with N open sockets, and RSS per idle socket
//   webhooks: commit → delivered webhook (p50/p99) at a steady write rate
//   catch-up: GET /cdc/events pages of 500 over a prefilled feed, events per second
// "Commit" is when the write's HTTP response arrives here (the commit happened just before it).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { appendToStream } from '../../infra/eventstore/eventStore.ts';
import { createDatabase } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { BENCH_INSTANCE_TOKEN, startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const INSTANCE_TOKEN = BENCH_INSTANCE_TOKEN;
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789';
const TARGETS = { frameP99Ms: 50, bytesPerIdleSocket: 50 * 1024, webhookP99Ms: 250, catchUpEventsPerSecond: 20_000 };

const usage = `usage: npm run bench -- feed [--sockets 1000] [--sockets-per-site 50] [--realtime-writes 500] [--realtime-rate 50]
                              [--webhook-rate 200] [--webhook-seconds 10] [--webhook-writes route|direct]
                              [--catch-up 50000] [--phases realtime,webhooks,catchup] [--redis]
  --sockets            open WebSocket connections (default 1000)
  --sockets-per-site   sockets per site; sites = sockets / this (default 50, the per-site limit)
  --realtime-writes    item writes during the realtime phase (default 500), at --realtime-rate per second (default 50)
  --webhook-rate       item writes per second during the webhook phase (default 200) for --webhook-seconds (default 10)
  --webhook-writes     route (POST /items, default) or direct (item events appended from the bench: the feed and
                       delivery pipeline without the items write path)
  --catch-up           feed entries to prefill and read back (default 50000)
  --redis              run the service with REDIS_URL (BullMQ, Redis fan-out)`;

interface Quantiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round(sorted.at(-1) ?? 0) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}


function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Api {
  constructor(readonly base: string) {}
  async call<T = { data: unknown }>(method: string, path: string, options: { site?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = {};
    if (options.site) headers['x-svc-site'] = options.site;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }
}

interface BenchSite {
  siteId: string;
  token: string;
}

async function createSite(api: Api, siteId: string): Promise<BenchSite> {
  const adminEmail = `admin@${siteId}.bench`;
  const adminPassword = 'bench password 0123456789';
  const created = await api.call('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: siteId, adminEmail, adminPassword } });
  if (created.status !== 201) throw new Error(`site creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await api.call<{ data: { token: string } }>('POST', '/auth/login', { site: siteId, body: { email: adminEmail, password: adminPassword } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  const schema = await api.call('POST', '/collections', {
    site: siteId,
    token: login.body.data.token,
    body: { name: 'articles', fields: [{ field: 'title', type: 'string' }, { field: 'body', type: 'text' }, { field: 'views', type: 'integer' }] },
  });
  if (schema.status !== 201) throw new Error(`collection creation failed: ${schema.status} ${JSON.stringify(schema.body)}`);
  return { siteId, token: login.body.data.token };
}

/** Writes one item through the items route; returns its id and when the response (the commit) arrived. */
async function writeItem(api: Api, site: BenchSite, index: number): Promise<{ id: string; committedAt: number }> {
  const response = await api.call<{ data: { id: string } }>('POST', '/items/articles', {
    site: site.siteId,
    token: site.token,
    body: { title: `Article ${index}`, body: 'lorem ipsum dolor sit amet '.repeat(8), views: index },
  });
  const committedAt = performance.now();
  if (response.status !== 201) throw new Error(`write failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.data.id, committedAt };
}

/** Runs `count` writes at `perSecond`, spread evenly, several in flight when the service lags. */
async function steadyWrites(count: number, perSecond: number, write: (index: number) => Promise<void>): Promise<{ seconds: number; achievedPerSecond: number }> {
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let index = 0; index < count; index += 1) {
    const due = started + (index * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inflight.push(write(index));
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - started) / 1000;
  return { seconds: round(seconds), achievedPerSecond: round(count / seconds) };
}

async function realtimePhase(api: Api, child: ChildProcess, options: { sockets: number; perSite: number; writes: number; rate: number }) {
  const siteCount = Math.ceil(options.sockets / options.perSite);
  const sites: BenchSite[] = [];
  for (let index = 0; index < siteCount; index += 1) sites.push(await createSite(api, `rt-${index}-${randomUUID().slice(0, 6)}`));
  await sleep(1_000);
  const rssBefore = rssBytes(child.pid!);
  const arrivals = new Map<string, number[]>();
  const sockets: WebSocket[] = [];
  const wsBase = api.base.replace(/^http/, 'ws');
  for (let index = 0; index < options.sockets; index += 1) {
    const site = sites[index % siteCount]!;
    const ticket = await api.call<{ data: { ticket: string } }>('POST', '/realtime/ticket', { site: site.siteId, token: site.token });
    const socket = new WebSocket(`${wsBase}/realtime?ticket=${encodeURIComponent(ticket.body.data.ticket)}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
    });
    socket.on('message', (data) => {
      const at = performance.now();
      const frame = JSON.parse(data.toString()) as { type: string; itemId?: string };
      if (frame.type !== 'event' || !frame.itemId) return;
      let list = arrivals.get(frame.itemId);
      if (!list) arrivals.set(frame.itemId, (list = []));
      list.push(at);
    });
    socket.send(JSON.stringify({ type: 'subscribe', collection: 'articles' }));
    sockets.push(socket);
  }
  await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => (socket.once('pong', () => resolve()), socket.ping()))));
  await sleep(2_000);
  const rssAfter = rssBytes(child.pid!);

  const commits = new Map<string, number>();
  const rate = await steadyWrites(options.writes, options.rate, async (index) => {
    const site = sites[index % siteCount]!;
    const { id, committedAt } = await writeItem(api, site, index);
    commits.set(id, committedAt);
  });
  const expectedFrames = [...commits.keys()].length * options.perSite;
  const deadline = performance.now() + 10_000;
  const received = () => [...arrivals.values()].reduce((total, list) => total + list.length, 0);
  while (received() < expectedFrames && performance.now() < deadline) await sleep(50);
  const latencies: number[] = [];
  for (const [id, committedAt] of commits) for (const at of arrivals.get(id) ?? []) latencies.push(at - committedAt);
  for (const socket of sockets) socket.terminate();
  return {
    sockets: options.sockets,
    sites: siteCount,
    socketsPerSite: options.perSite,
    writes: options.writes,
    targetRate: options.rate,
    achievedRate: rate.achievedPerSecond,
    framesExpected: expectedFrames,
    framesReceived: received(),
    commitToFrameMs: quantiles(latencies),
    rssBeforeBytes: rssBefore,
    rssAfterBytes: rssAfter,
    bytesPerIdleSocket: Math.round((rssAfter - rssBefore) / options.sockets),
  };
}

/**
 * The webhook receiver runs in a process of its own, so its answers do not wait for this process's
 * event loop (busy writing and long-polling); arrival times are absolute (timeOrigin + now).
 */
const RECEIVER_SOURCE = `
const http = require('node:http');
const arrivals = {};
let duplicates = 0;
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (arrivals[body.itemId] !== undefined) duplicates += 1; else arrivals[body.itemId] = at;
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'count') process.send({ count: Object.keys(arrivals).length });
  if (message === 'report') process.send({ arrivals, duplicates });
});
`;

interface ReceiverProcess {
  url: string;
  ask<T>(message: string): Promise<T>;
  stop(): void;
}

async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, ['-e', RECEIVER_SOURCE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve((message as { port: number }).port)));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    ask<T>(message: string) {
      return new Promise<T>((resolve) => {
        child.once('message', (answer) => resolve(answer as T));
        child.send(message);
      });
    },
    stop() {
      child.kill();
    },
  };
}

const now = () => performance.timeOrigin + performance.now();

/**
 * `route`: items written through POST /items (the whole write path in the same service);
 * `direct`: contract-shaped item events appended from here (the change-feed and delivery pipeline alone).
 */
type WriteMode = 'route' | 'direct';

async function directWriter(databaseUrl: string, siteId: string) {
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 8 });
  return {
    async write(index: number): Promise<string> {
      const itemId = randomUUID();
      const at = new Date().toISOString();
      await database.withSite(siteId, (tx) =>
        appendToStream(tx, {
          siteId,
          streamId: `${siteId}/item/articles/${itemId}`,
          expectedVersion: 'no_stream',
          events: [
            {
              type: 'item.created',
              data: {
                collection: 'articles',
                itemId,
                snapshot: { id: itemId, status: null, sort: null, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null, title: `Article ${index}`, views: index },
                delta: { title: `Article ${index}`, views: index },
              },
            },
          ],
          metadata: { actor: { kind: 'system', id: 'bench' } },
        }),
      );
      return itemId;
    },
    close: () => database.close(),
  };
}

async function webhookPhase(api: Api, databaseUrl: string, options: { rate: number; seconds: number; writes: WriteMode }) {
  const site = await createSite(api, `wh-${randomUUID().slice(0, 8)}`);
  const direct = options.writes === 'direct' ? await directWriter(databaseUrl, site.siteId) : null;
  const receiver = await startReceiverProcess();
  const created = await api.call('POST', '/cdc/subscriptions', {
    site: site.siteId,
    token: site.token,
    body: { name: 'bench', kind: 'webhook', webhook: { url: receiver.url, secret: WEBHOOK_SECRET }, filters: { collections: ['articles'], operations: ['items.create'] } },
  });
  if (created.status !== 201) throw new Error(`subscription failed: ${created.status} ${JSON.stringify(created.body)}`);
  const commits = new Map<string, number>();
  const count = options.rate * options.seconds;
  // A pull consumer long-polling the feed at the same time: where the time goes (feed vs delivery).
  const pulled = new Map<string, number>();
  let pulling = true;
  const puller = (async () => {
    const head = await api.call<{ meta: { nextCursor: string } }>('GET', '/cdc/events?limit=1&collections=none', { site: site.siteId, token: site.token });
    let cursor = head.body.meta.nextCursor;
    while (pulling) {
      const page = await api.call<{ data: { itemId: string }[]; meta: { nextCursor: string } }>(
        'GET',
        `/cdc/events?limit=500&wait=2&operations=items.create&cursor=${cursor}`,
        { site: site.siteId, token: site.token },
      );
      const at = now();
      for (const entry of page.body.data) pulled.set(entry.itemId, at);
      cursor = page.body.meta.nextCursor;
    }
  })();
  const rate = await steadyWrites(count, options.rate, async (index) => {
    const id = direct ? await direct.write(index) : (await writeItem(api, site, index)).id;
    commits.set(id, now());
  });
  await direct?.close();
  const deadline = performance.now() + 60_000;
  for (;;) {
    const { count: delivered } = await receiver.ask<{ count: number }>('count');
    if ((delivered >= count && pulled.size >= count) || performance.now() > deadline) break;
    await sleep(100);
  }
  pulling = false;
  await puller;
  const report = await receiver.ask<{ arrivals: Record<string, number>; duplicates: number }>('report');
  receiver.stop();
  const latencies = [...commits].filter(([id]) => report.arrivals[id] !== undefined).map(([id, committedAt]) => report.arrivals[id]! - committedAt);
  const pullLatencies = [...commits].filter(([id]) => pulled.has(id)).map(([id, committedAt]) => pulled.get(id)! - committedAt);
  return {
    writeMode: options.writes,
    writes: count,
    targetRate: options.rate,
    achievedRate: rate.achievedPerSecond,
    delivered: Object.keys(report.arrivals).length,
    duplicates: report.duplicates,
    commitToDeliveryMs: quantiles(latencies),
    commitToLongPollMs: quantiles(pullLatencies),
  };
}

/** Prefills the feed (events appended in bulk by SQL, projected by the daemon), then reads it back over HTTP. */
async function catchUpPhase(api: Api, databaseUrl: string, entries: number) {
  const site = await createSite(api, `cu-${randomUUID().slice(0, 8)}`);
  const owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  try {
    await owner.query(
      `INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
       SELECT $1, $1 || '/item/articles/' || g, 1, gen_random_uuid(), 'item.created',
              jsonb_build_object('collection', 'articles', 'itemId', g::text,
                'snapshot', jsonb_build_object('id', g::text, 'status', 'published', 'sort', null, 'title', 'Article ' || g,
                  'body', repeat('lorem ipsum ', 20), 'views', g, 'createdAt', now(), 'updatedAt', now(),
                  'userCreated', null, 'userUpdated', null, 'deletedAt', null),
                'delta', jsonb_build_object('title', 'Article ' || g, 'views', g)),
              '{"actor":{"kind":"user","id":"bench"}}', md5(g::text)
         FROM generate_series(1, $2::int) g`,
      [site.siteId, entries],
    );
    // The service's daemon projects them; wait until the site's feed holds them all.
    const deadline = Date.now() + 300_000;
    for (;;) {
      const { rows } = await owner.query<{ last_seq: number }>('SELECT last_seq FROM cdc_feed_sites WHERE site_id = $1', [site.siteId]);
      if (Number(rows[0]?.last_seq ?? 0) >= entries) break;
      if (Date.now() > deadline) throw new Error('the change-feed projection did not catch up in 300 s');
      await sleep(250);
    }
  } finally {
    await owner.end();
  }
  let cursor: string | undefined;
  let read = 0;
  let pages = 0;
  const started = performance.now();
  for (;;) {
    const page = await api.call<{ data: unknown[]; meta: { nextCursor: string; hasMore: boolean } }>(
      'GET',
      `/cdc/events?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
      { site: site.siteId, token: site.token },
    );
    if (page.status !== 200) throw new Error(`GET /cdc/events failed: ${page.status}`);
    read += page.body.data.length;
    pages += 1;
    cursor = page.body.meta.nextCursor;
    if (!page.body.meta.hasMore) break;
  }
  const seconds = (performance.now() - started) / 1000;
  return { entries, read, pages, seconds: round(seconds), eventsPerSecond: round(read / seconds) };
}

function startService(databaseUrl: string, port: number, redis: boolean, socketsPerSite: number): ChildProcess {
  return startBenchService(databaseUrl, port, {
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    SVC_REALTIME_MAX_CONNECTIONS_PER_SITE: String(Math.max(50, socketsPerSite)),
    REDIS_URL: redis ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : '',
  });
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sockets: { type: 'string', default: '1000' },
      'sockets-per-site': { type: 'string', default: '50' },
      'realtime-writes': { type: 'string', default: '500' },
      'realtime-rate': { type: 'string', default: '50' },
      'webhook-rate': { type: 'string', default: '200' },
      'webhook-seconds': { type: 'string', default: '10' },
      'webhook-writes': { type: 'string', default: 'route' },
      'catch-up': { type: 'string', default: '50000' },
      phases: { type: 'string', default: 'realtime,webhooks,catchup' },
      redis: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const serverUrl = scratchServerUrl();
  const phases = new Set(values.phases!.split(','));
  const scratch = await createScratchDatabase(serverUrl, `svc_bench_feed_${Date.now().toString(36)}`);
  const databaseUrl = new URL(scratch.url);
  await migrate(scratch.url);
  const port = 20_000 + Math.floor(Math.random() * 2_000);
  const child = startService(databaseUrl.toString(), port, values.redis === true, positiveInteger(values['sockets-per-site'], 'sockets-per-site', usage));
  const api = new Api(`http://127.0.0.1:${port}/api/v1`);
  const result: Record<string, unknown> = {
    benchmark: 'feed',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    redis: values.redis === true,
    targets: TARGETS,
  };
  try {
    await waitForHealth(api.base, child);
    if (phases.has('realtime')) {
      const realtime = await realtimePhase(api, child, {
        sockets: positiveInteger(values.sockets, 'sockets', usage),
        perSite: positiveInteger(values['sockets-per-site'], 'sockets-per-site', usage),
        writes: positiveInteger(values['realtime-writes'], 'realtime-writes', usage),
        rate: positiveInteger(values['realtime-rate'], 'realtime-rate', usage),
      });
      result.realtime = realtime;
      console.log(
        `realtime: ${realtime.sockets} sockets on ${realtime.sites} sites, ${realtime.writes} writes at ${realtime.achievedRate}/s: ` +
          `commit→frame p50 ${realtime.commitToFrameMs.p50} ms, p99 ${realtime.commitToFrameMs.p99} ms (${realtime.framesReceived}/${realtime.framesExpected} frames); ` +
          `RSS per idle socket ${Math.round(realtime.bytesPerIdleSocket / 1024)} KiB`,
      );
    }
    if (phases.has('webhooks')) {
      const writes = values['webhook-writes'] === 'direct' ? 'direct' : 'route';
      const webhooks = await webhookPhase(api, databaseUrl.toString(), {
        rate: positiveInteger(values['webhook-rate'], 'webhook-rate', usage),
        seconds: positiveInteger(values['webhook-seconds'], 'webhook-seconds', usage),
        writes,
      });
      result.webhooks = webhooks;
      console.log(
        `webhooks (${webhooks.writeMode} writes): ${webhooks.writes} writes at ${webhooks.achievedRate}/s: commit→delivery p50 ${webhooks.commitToDeliveryMs.p50} ms, ` +
          `p99 ${webhooks.commitToDeliveryMs.p99} ms (${webhooks.delivered} delivered, ${webhooks.duplicates} duplicates); ` +
          `commit→long-poll p50 ${webhooks.commitToLongPollMs.p50} ms, p99 ${webhooks.commitToLongPollMs.p99} ms`,
      );
    }
    if (phases.has('catchup')) {
      const catchUp = await catchUpPhase(api, databaseUrl.toString(), positiveInteger(values['catch-up'], 'catch-up', usage));
      result.catchUp = catchUp;
      console.log(`catch-up: GET /cdc/events read ${catchUp.read} entries in ${catchUp.pages} pages, ${catchUp.eventsPerSecond} events/s`);
    }
    const realtime = result.realtime as Awaited<ReturnType<typeof realtimePhase>> | undefined;
    const webhooks = result.webhooks as Awaited<ReturnType<typeof webhookPhase>> | undefined;
    const catchUp = result.catchUp as Awaited<ReturnType<typeof catchUpPhase>> | undefined;
    result.meetsTargets = {
      frameP99: realtime ? realtime.commitToFrameMs.p99 < TARGETS.frameP99Ms : null,
      bytesPerIdleSocket: realtime ? realtime.bytesPerIdleSocket < TARGETS.bytesPerIdleSocket : null,
      webhookP99: webhooks ? webhooks.commitToDeliveryMs.p99 < TARGETS.webhookP99Ms : null,
      catchUp: catchUp ? catchUp.eventsPerSecond >= TARGETS.catchUpEventsPerSecond : null,
    };
    console.log('targets:', JSON.stringify(result.meetsTargets));
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `feed-${String(result.at).replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    await stopBenchService(child);
    await scratch.drop();
  }
}
