// Files and media against the service as a child process (`svc start`, NODE_ENV=production, the upload
// and read rate limits off, local object storage in a temp SVC_DATA_DIR, no Redis) on a scratch database
// of DATABASE_URL's server. One site, its upload policy raised to 100 MB, then:
// 1. upload: a 2000×2000 JPEG (a pattern plus noise, made with sharp) to POST /media/photo.jpg;
// 5. (run second, on the idle service) RSS: a 50 MiB `application/octet-stream` file `big.bin` streamed
//    to POST /media/big.bin, the service's VmRSS sampled every 20 ms; peak growth over the baseline;
// 2. transform: GET /assets/<id>?width=<w>&format=webp for --transforms widths (400, 401, …), each a new
//    derivative, in turn (client-measured, HTTP included), and createImageTransformer().render in this
//    process on the stored original (sharp alone);
// 3. single flight: 50 concurrent GETs of one new derivative; renders counted by watching the storage
//    folder (data versions written) and the render temp folder (`*.out` files), bodies compared;
// 4. cached: autocannon on one stored derivative, 10 connections, every answer 200.
// Targets on the 2-core machine: 3,000 req/s cached; a 400 px webp under 150 ms; one render for 50
// concurrent requests; a 50 MB upload grows RSS by less than 30 MB.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { migrate } from '../../infra/postgres/migrate.ts';
import { createImageTransformer } from '../../src/modules/files/imageTransformer.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { cpuMs } from './support/processCpu.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const usage = `usage: npm run bench -- media [--transforms 10] [--renders 10] [--concurrent 50] [--duration 10] [--warmup 3] [--rounds 3] [--connections 10] [--upload-mib 50] [--keep]
  --transforms   new derivatives made in turn (widths 400, 401, …), timed over HTTP
  --renders      in-process renders of the 400 px webp (after one warm-up), timed
  --concurrent   concurrent GETs of one new derivative (single flight)
  --duration     seconds per measured round of the cached derivative (after a --warmup)
  --upload-mib   size of the streamed upload whose RSS is sampled
  --keep         keep the scratch database and the data folder (prints them)`;

const SITE = 'mediabench';
const KEY = 'photo.jpg';
const SIZE = 2000;
const TARGET = { cachedRequestsPerSecond: 3_000, transformMs: 150, renders: 1, rssGrowthMiB: 30 };
const MIB = 1024 * 1024;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor((values.length - 1) / 2)]!;
/** Nearest rank. */
const percentile = (values: number[], p: number) => sorted(values)[Math.max(0, Math.ceil(p * values.length) - 1)]!;
const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** CPU milliseconds of the service so far (this bench runs where /proc is readable). */
const serviceCpuMs = (pid: number | undefined): number => cpuMs(pid) ?? 0;

/** Resident set size of a process in KiB (VmRSS). */
function rssKiB(pid: number | undefined): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}

/** A photo-like 2000×2000 JPEG: smooth colour bands plus noise (seeded), so it neither compresses to nothing nor is pure noise. */
async function makeJpeg(): Promise<Buffer> {
  const pixels = Buffer.alloc(SIZE * SIZE * 3);
  let seed = 0x2545f491;
  const noise = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return ((seed >>> 0) % 49) - 24;
  };
  for (let y = 0; y < SIZE; y += 1) {
    for (let x = 0; x < SIZE; x += 1) {
      const at = (y * SIZE + x) * 3;
      pixels[at] = Math.max(0, Math.min(255, 128 + 90 * Math.sin(x / 97) + noise()));
      pixels[at + 1] = Math.max(0, Math.min(255, 128 + 90 * Math.cos(y / 131) + noise()));
      pixels[at + 2] = Math.max(0, Math.min(255, 128 + 60 * Math.sin((x + y) / 173) + noise()));
    }
  }
  return sharp(pixels, { raw: { width: SIZE, height: SIZE, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/** POSTs the file at `path` as a streamed request body (a file stream piped into http.request). */
function postFile(url: string, headers: Record<string, string>, path: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(bytes) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    createReadStream(path).on('error', reject).pipe(outgoing);
  });
}

/** Names created in `dir` while watched (inotify: every new file is reported, even one renamed or removed at once). */
function watchNames(dir: string): { names: Set<string>; close(): void } {
  const names = new Set<string>();
  const watcher: FSWatcher = watch(dir, (_event, name) => {
    if (name) names.add(name.toString());
  });
  return { names, close: () => watcher.close() };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      transforms: { type: 'string', default: '10' },
      renders: { type: 'string', default: '10' },
      concurrent: { type: 'string', default: '50' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      'upload-mib': { type: 'string', default: '50' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const transforms = positiveInteger(values.transforms, 'transforms', usage);
  const renders = positiveInteger(values.renders, 'renders', usage);
  const concurrent = positiveInteger(values.concurrent, 'concurrent', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const warmup = positiveInteger(values.warmup, 'warmup', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const uploadMiB = positiveInteger(values['upload-mib'], 'upload-mib', usage);

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_media_${Date.now().toString(36)}`);
  await migrate(scratch.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-media-'));
  const work = join(dataDir, 'bench-inputs');
  mkdirSync(work);
  const port = 28_000 + Math.floor(Math.random() * 2_000);
  const environment = { SVC_DATA_DIR: dataDir, S3_BUCKET: '', SVC_RATE_LIMIT_FILE_UPLOAD: '0', SVC_RATE_LIMIT_ITEMS_READ: '0', SVC_ACCESS_TOKEN_TTL: '86400' };
  const child = startBenchService(scratch.url, port, environment);
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/api/v1`;
  const report: Record<string, unknown> = {};
  try {
    await waitForHealth(base, child);
    const { token } = await prepareSite(base, SITE, false);
    const auth = { authorization: `Bearer ${token}`, 'x-svc-site': SITE };
    const policy = await fetch(`${base}/uploads/config`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ maxBytes: 100_000_000 }) });
    if (!policy.ok) throw new Error(`PUT /uploads/config: ${policy.status} ${await policy.text()}`);
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`, { headers: auth });
      return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
    };

    // 1. The JPEG upload.
    const jpeg = await makeJpeg();
    const jpegPath = join(work, KEY);
    writeFileSync(jpegPath, jpeg);
    let started = performance.now();
    const uploaded = await postFile(`${base}/media/${KEY}`, { ...auth, 'content-type': 'image/jpeg' }, jpegPath, jpeg.length);
    const uploadMs = Math.round(performance.now() - started);
    if (uploaded.status !== 201) throw new Error(`POST /media/${KEY}: ${uploaded.status} ${uploaded.body.slice(0, 1_000)}`);
    const file = (JSON.parse(uploaded.body) as { data: { id: string; size: number; width: number; height: number } }).data;
    const original = await get(`/assets/${file.id}`);
    if (original.status !== 200 || original.body.length !== file.size) throw new Error(`GET /assets/${file.id}: ${original.status}, ${original.body.length} bytes (record: ${file.size})`);
    const storedPath = join(work, 'stored.jpg');
    writeFileSync(storedPath, original.body);
    report.upload = { bytesSent: jpeg.length, storedBytes: file.size, width: file.width, height: file.height, ms: uploadMs };
    console.log(`1. uploaded ${KEY}: ${SIZE}×${SIZE} JPEG, ${jpeg.length} bytes sent, ${file.size} stored${file.size === jpeg.length ? '' : ' (re-encoded by the guard)'}, ${file.width}×${file.height}, 201 in ${uploadMs} ms`);

    // 5. RSS of a streamed upload, on the idle service (after a 1 MiB warm-up upload of the same kind).
    const binary = (name: string, bytes: number) => {
      const path = join(work, name);
      const random = randomBytes(bytes);
      random.write('BENCHBIN', 0, 'latin1'); // no executable magic, nothing file-type recognises
      writeFileSync(path, random);
      return path;
    };
    const upload = (name: string, path: string, bytes: number) => postFile(`${base}/media/${name}`, { ...auth, 'content-type': 'application/octet-stream' }, path, bytes);
    const bigPath = binary('big.bin', uploadMiB * MIB);
    const warm = await upload('warm.bin', binary('warm.bin', MIB), MIB);
    if (warm.status !== 201) throw new Error(`POST /media/warm.bin: ${warm.status} ${warm.body.slice(0, 1_000)}`);
    await sleep(500);
    const baselineSamples: number[] = [];
    for (let i = 0; i < 50; i += 1, await sleep(20)) baselineSamples.push(rssKiB(child.pid));
    const baselineKiB = median(baselineSamples);
    const samples: number[] = [];
    let lastSample = performance.now();
    let longestGapMs = 0;
    const sampler = setInterval(() => {
      samples.push(rssKiB(child.pid));
      longestGapMs = Math.max(longestGapMs, performance.now() - lastSample);
      lastSample = performance.now();
    }, 20);
    started = performance.now();
    const big = await upload('big.bin', bigPath, uploadMiB * MIB).finally(() => clearInterval(sampler));
    const bigMs = Math.round(performance.now() - started);
    if (big.status !== 201) throw new Error(`POST /media/big.bin: ${big.status} ${big.body.slice(0, 1_000)}`);
    const bigSize = (JSON.parse(big.body) as { data: { size: number } }).data.size;
    if (bigSize !== uploadMiB * MIB) throw new Error(`big.bin stored as ${bigSize} bytes, not ${uploadMiB * MIB}`);
    await sleep(1_000);
    const peakKiB = Math.max(...samples);
    const rss = {
      uploadMiB,
      ms: bigMs,
      mibPerSecond: round1(uploadMiB / (bigMs / 1000)),
      baselineMiB: round1(baselineKiB / 1024),
      peakMiB: round1(peakKiB / 1024),
      peakGrowthMiB: round1((peakKiB - baselineKiB) / 1024),
      afterMiB: round1(rssKiB(child.pid) / 1024),
      samples: samples.length,
      longestGapMs: Math.round(longestGapMs),
      met: (peakKiB - baselineKiB) / 1024 < TARGET.rssGrowthMiB,
    };
    report.rss = rss;
    console.log(
      `5. ${uploadMiB} MiB application/octet-stream streamed to POST /media/big.bin: 201 in ${bigMs} ms (${rss.mibPerSecond} MiB/s); service RSS baseline ${rss.baselineMiB} MiB, ` +
        `peak ${rss.peakMiB} MiB (+${rss.peakGrowthMiB} MiB), 1 s later ${rss.afterMiB} MiB (${rss.samples} samples, longest gap ${rss.longestGapMs} ms)`,
    );

    // 2. New derivatives in turn, over HTTP, then sharp alone in this process.
    const assetPath = (width: number) => `/assets/${file.id}?width=${width}&format=webp`;
    const transformMs: number[] = [];
    const transformCpuMs: number[] = [];
    let derivative400 = Buffer.alloc(0);
    for (let i = 0; i < transforms; i += 1) {
      const width = 400 + i;
      const cpuBefore = serviceCpuMs(child.pid);
      started = performance.now();
      const answer = await get(assetPath(width));
      transformMs.push(round1(performance.now() - started));
      transformCpuMs.push(serviceCpuMs(child.pid) - cpuBefore);
      if (answer.status !== 200 || answer.type !== 'image/webp') throw new Error(`GET ${assetPath(width)}: ${answer.status} ${answer.type} ${answer.body.toString('utf8', 0, 500)}`);
      const meta = await sharp(answer.body).metadata();
      if (meta.format !== 'webp' || meta.width !== width) throw new Error(`GET ${assetPath(width)} gave a ${meta.format} ${meta.width}×${meta.height}`);
      if (width === 400) derivative400 = answer.body;
    }
    const again = await get(assetPath(400));
    if (!again.body.equals(derivative400)) throw new Error('the stored 400 px derivative differs from the one first served');
    const transformer = createImageTransformer({ maxInputPixels: 50_000_000, timeoutMs: 10_000, concurrency: 2 });
    const params = { width: 400, format: 'webp' as const, quality: 80 };
    started = performance.now();
    const firstRender = await transformer.render(storedPath, params);
    const firstRenderMs = round1(performance.now() - started);
    const renderMs: number[] = [];
    for (let i = 0; i < renders; i += 1) {
      started = performance.now();
      await transformer.render(storedPath, params);
      renderMs.push(round1(performance.now() - started));
    }
    const transform = {
      widths: `400..${400 + transforms - 1}`,
      httpMs: transformMs,
      medianMs: median(transformMs),
      p95Ms: percentile(transformMs, 0.95),
      serviceCpuMs: transformCpuMs,
      medianServiceCpuMs: median(transformCpuMs),
      inProcess: { firstMs: firstRenderMs, renderMs, medianMs: median(renderMs), bytes: firstRender.buffer.length, sameBytesAsServed: firstRender.buffer.equals(derivative400) },
      derivative400Bytes: derivative400.length,
      met: median(transformMs) < TARGET.transformMs,
    };
    report.transform = transform;
    console.log(
      `2. ${transforms} new 400..${400 + transforms - 1} px webp derivatives in turn (HTTP, client-measured): median ${transform.medianMs} ms, p95 ${transform.p95Ms} ms ` +
        `[${transformMs.join(', ')}]; service CPU median ${transform.medianServiceCpuMs} ms each`,
    );
    console.log(
      `   in-process createImageTransformer().render(stored JPEG, 400 px webp): first ${firstRenderMs} ms, median of ${renders} ${transform.inProcess.medianMs} ms ` +
        `(${firstRender.buffer.length} bytes; ${transform.inProcess.sameBytesAsServed ? 'the same bytes as served' : `served ${derivative400.length} bytes`})`,
    );

    // 3. Single flight: concurrent GETs of one new derivative.
    const width = 400 + transforms + 100;
    const derivativesDir = join(dataDir, 'objects', 'sites', SITE, 'media', `${KEY}.derivatives`);
    const rendersDir = join(dataDir, 'tmp', 'derivatives');
    const metaFiles = () => readdirSync(derivativesDir).filter((name) => name.endsWith('~meta.json'));
    const before = new Set(metaFiles());
    const stored = watchNames(derivativesDir);
    const rendered = watchNames(rendersDir);
    const cpuBefore = serviceCpuMs(child.pid);
    started = performance.now();
    const answers = await Promise.all(Array.from({ length: concurrent }, () => get(assetPath(width))));
    const burstMs = Math.round(performance.now() - started);
    const burstCpuMs = serviceCpuMs(child.pid) - cpuBefore;
    await sleep(300);
    stored.close();
    rendered.close();
    const newDerivatives = metaFiles().filter((name) => !before.has(name));
    const versionsWritten = [...stored.names].filter((name) => /~[0-9a-f]{24}$/.test(name)).length;
    const rendersSeen = [...rendered.names].filter((name) => name.endsWith('.out')).length;
    const hashes = new Set(answers.map((answer) => sha256(answer.body)));
    const ok200 = answers.filter((answer) => answer.status === 200 && answer.type === 'image/webp').length;
    const single = {
      requests: concurrent,
      width,
      ms: burstMs,
      ok200,
      distinctBodies: hashes.size,
      newDerivativeObjects: newDerivatives.length,
      derivativeVersionsWritten: versionsWritten,
      rendersObserved: rendersSeen,
      serviceCpuMs: burstCpuMs,
      met: ok200 === concurrent && hashes.size === 1 && newDerivatives.length === 1 && versionsWritten === 1 && rendersSeen === TARGET.renders,
    };
    report.singleFlight = single;
    console.log(
      `3. ${concurrent} concurrent GETs of the new ${width} px webp: ${ok200}/${concurrent} 200 in ${burstMs} ms, ${hashes.size} distinct body; ` +
        `derivative objects +${newDerivatives.length} (${newDerivatives.join(', ')}), data versions written ${versionsWritten}, renders (tmp *.out files) ${rendersSeen}; ` +
        `service CPU ${burstCpuMs} ms (one transform: ${transform.medianServiceCpuMs} ms)`,
    );

    // 4. The stored derivative under load.
    let status = new Map<number, number>();
    const onResponse = (code: number) => status.set(code, (status.get(code) ?? 0) + 1);
    const cannon = async (seconds: number) => {
      status = new Map();
      const cpu = serviceCpuMs(child.pid);
      const client = process.cpuUsage();
      const result = await autocannon({ url: origin, connections, duration: seconds, headers: auth, requests: [{ method: 'GET', path: `/api/v1${assetPath(400)}`, onResponse }] });
      const clientCpu = process.cpuUsage(client);
      const total = Math.max(1, result.requests.total);
      const answered = [...status.values()].reduce((a, b) => a + b, 0);
      return {
        requestsPerSecond: Math.round(result.requests.average),
        requests: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non200: answered - (status.get(200) ?? 0),
        errors: result.errors + result.timeouts,
        serviceCpuMsPerRequest: round2((serviceCpuMs(child.pid) - cpu) / total),
        clientCpuMsPerRequest: round2((clientCpu.user + clientCpu.system) / 1000 / total),
      };
    };
    await cannon(warmup);
    const cachedRounds = [];
    for (let round = 1; round <= rounds; round += 1) {
      const figure = await cannon(duration);
      cachedRounds.push(figure);
      console.log(
        `4. round ${round}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-200 ${figure.non200}, errors ${figure.errors}, ` +
          `service CPU ${figure.serviceCpuMsPerRequest} ms/req, client CPU ${figure.clientCpuMsPerRequest} ms/req`,
      );
    }
    const cached = {
      path: `/api/v1${assetPath(400)}`,
      bytes: derivative400.length,
      rounds: cachedRounds,
      requestsPerSecond: median(cachedRounds.map((figure) => figure.requestsPerSecond)),
      p99Ms: median(cachedRounds.map((figure) => figure.p99)),
      serviceCpuMsPerRequest: median(cachedRounds.map((figure) => figure.serviceCpuMsPerRequest)),
      clientCpuMsPerRequest: median(cachedRounds.map((figure) => figure.clientCpuMsPerRequest)),
      non200: cachedRounds.reduce((sum, figure) => sum + figure.non200, 0),
      errors: cachedRounds.reduce((sum, figure) => sum + figure.errors, 0),
      met: false,
    };
    cached.met = cached.requestsPerSecond >= TARGET.cachedRequestsPerSecond && cached.non200 === 0 && cached.errors === 0;
    report.cached = cached;

    const rows: [string, string, string, boolean | null][] = [
      ['1. upload 2000×2000 JPEG', `201 in ${uploadMs} ms (${jpeg.length} bytes)`, '', null],
      ['2. new 400 px webp (HTTP)', `median ${transform.medianMs} ms, p95 ${transform.p95Ms} ms`, `< ${TARGET.transformMs} ms`, transform.met],
      ['   sharp alone (in-process)', `median ${transform.inProcess.medianMs} ms`, '', null],
      [`3. single flight (${concurrent} GETs)`, `${rendersSeen} render, +${newDerivatives.length} object, ${ok200}/${concurrent} 200, ${hashes.size} body`, '1 render', single.met],
      [`4. cached derivative (${connections} conn)`, `${cached.requestsPerSecond} req/s, p99 ${cached.p99Ms} ms, non-200 ${cached.non200}`, `≥ ${TARGET.cachedRequestsPerSecond} req/s`, cached.met],
      [`5. ${uploadMiB} MiB upload RSS`, `+${rss.peakGrowthMiB} MiB (baseline ${rss.baselineMiB} MiB)`, `< ${TARGET.rssGrowthMiB} MiB`, rss.met],
    ];
    console.log(`\n${'scenario'.padEnd(32)} ${'figure'.padEnd(50)} ${'target'.padEnd(16)} verdict`);
    for (const [name, figure, target, met] of rows) console.log(`${name.padEnd(32)} ${figure.padEnd(50)} ${target.padEnd(16)} ${met === null ? '' : met ? 'ok' : 'BELOW TARGET'}`);
    console.log(
      '(2: client-measured, HTTP and the copy of the original to a temp file included; p95 is nearest-rank. 4: median of the rounds, service CPU ' +
        `${cached.serviceCpuMsPerRequest} ms/req, client (autocannon) ${cached.clientCpuMsPerRequest} ms/req on the same cores. 5: measured second, on the idle service.)`,
    );
  } finally {
    await stopBenchService(child);
    if (values.keep) console.log(`kept database ${scratch.name} and data folder ${dataDir}`);
    else {
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  const at = new Date().toISOString();
  const output = {
    benchmark: 'media',
    at,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { transforms, renders, concurrent, duration, warmup, rounds, connections, uploadMiB },
    environment: { ...environment, SVC_DATA_DIR: '<temp folder>' },
    target: TARGET,
    ...report,
  };
  mkdirSync('bench-results', { recursive: true });
  const path = join('bench-results', `media-${at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(output, null, 2)}\n`);
  console.log(`results written to ${path}`);
}
