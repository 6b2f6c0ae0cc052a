// `svc doctor`: checks a deployment's configuration and connectivity as the service would see them at
// start, and says what is wrong. Reads only (no migration, no write but the storage probe's object,
// removed again); every check is bounded in time. docs/operations.md, "svc doctor".
import { accessSync, constants, readdirSync } from 'node:fs';
import { connect as connectNats } from 'nats';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { createRedis, redisHealth, redisReady } from '../../infra/redis/redis.ts';
import { MIGRATIONS_DIRECTORY } from '../../infra/postgres/migrate.ts';
import { createObjectStorage } from '../../infra/storage/createObjectStorage.ts';
import { ConfigError, configWarnings, loadConfig, type Config } from '../config/config.ts';
import { probeStorage } from '../modules/files/filesRuntime.ts';

export type DoctorStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  status: DoctorStatus;
  detail: string;
}

/** How long one connectivity check may take. */
export const DOCTOR_CHECK_TIMEOUT_MS = 5_000;
/** The oldest PostgreSQL the service runs on (README). */
const MIN_POSTGRES_VERSION = 150_000;

export async function runDoctor(environment: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  let config: Config;
  try {
    config = loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return [{ name: 'configuration', status: 'fail', detail: error.message }];
    throw error;
  }
  const checks: DoctorCheck[] = [{ name: 'configuration', status: 'ok', detail: `NODE_ENV=${config.NODE_ENV}` }];
  for (const warning of configWarnings(config, environment)) checks.push({ name: 'configuration', status: 'warn', detail: warning });
  checks.push(...productionChecks(config));
  checks.push(nodeCheck());
  checks.push(dataDirectoryCheck(config.dataDir));
  const connectivity = await Promise.all([
    bounded('database', () => databaseCheck(config)),
    bounded('redis', () => redisCheck(config)),
    bounded('nats', () => natsCheck(config)),
    bounded('smtp', () => smtpCheck(config)),
    bounded('storage', () => storageCheck(config)),
  ]);
  checks.push(...connectivity);
  return checks;
}

/** The report, one line per check: `ok   name  detail`. */
export function formatDoctor(checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((check) => check.name.length));
  return checks.map((check) => `${check.status.padEnd(4)} ${check.name.padEnd(width)}  ${check.detail}`).join('\n');
}

function productionChecks(config: Config): DoctorCheck[] {
  if (config.NODE_ENV !== 'production') return [];
  const checks: DoctorCheck[] = [];
  const need = (name: string, ok: boolean, problem: string, fine: string) => checks.push({ name, status: ok ? 'ok' : 'fail', detail: ok ? fine : problem });
  need('production', config.DATABASE_URL !== undefined, 'DATABASE_URL is not set: production runs on a PostgreSQL of its own, not the embedded one', 'DATABASE_URL is set');
  need('production', config.SVC_SECRET !== undefined, 'SVC_SECRET is not set: tokens would not survive a restart or be shared by instances', 'SVC_SECRET is set');
  need('production', config.SVC_PUBLIC_URL.startsWith('https://'), `SVC_PUBLIC_URL is ${config.SVC_PUBLIC_URL}: emailed links and OAuth callbacks need the public https address`, 'SVC_PUBLIC_URL is https');
  if (!config.REDIS_URL) {
    checks.push({ name: 'production', status: 'warn', detail: 'REDIS_URL is not set: rate limits, realtime fan-out and caches are per instance (fine for one instance only)' });
  }
  if (config.SVC_METRICS && config.SVC_METRICS_PORT === undefined) {
    checks.push({ name: 'production', status: 'warn', detail: 'SVC_METRICS without SVC_METRICS_PORT: metrics are served on the API port (instance token); a port of their own keeps them off the public network' });
  }
  return checks;
}

function nodeCheck(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const supported = (major === 22 && minor >= 15) || major >= 24;
  return { name: 'node', status: supported ? 'ok' : 'fail', detail: supported ? `Node ${process.version}` : `Node ${process.version}: the service needs 22.15 or later (package.json "engines")` };
}

function dataDirectoryCheck(directory: string): DoctorCheck {
  try {
    accessSync(directory, constants.W_OK);
    return { name: 'data dir', status: 'ok', detail: `${directory} is writable` };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT'
      ? { name: 'data dir', status: 'warn', detail: `${directory} does not exist yet (created at start)` }
      : { name: 'data dir', status: 'fail', detail: `${directory} is not writable (${code ?? String(error)})` };
  }
}

async function databaseCheck(config: Config): Promise<Omit<DoctorCheck, 'name'>> {
  if (!config.DATABASE_URL) return { status: 'ok', detail: `DATABASE_URL is not set: the embedded PostgreSQL in ${config.dataDir} starts with the service` };
  const client = new pg.Client({ connectionString: config.DATABASE_URL, connectionTimeoutMillis: DOCTOR_CHECK_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const version = Number((await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`)).rows[0]?.v ?? 0);
    if (version < MIN_POSTGRES_VERSION) return { status: 'fail', detail: `PostgreSQL ${version} is older than 15` };
    const files = readdirSync(MIGRATIONS_DIRECTORY).filter((name) => name.endsWith('.sql'));
    const table = await client.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
    const applied = table.rows[0]?.exists ? new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name)) : new Set<string>();
    const pending = files.filter((name) => !applied.has(name));
    const where = `PostgreSQL ${Math.floor(version / 10_000)}.${version % 10_000}`;
    return pending.length === 0
      ? { status: 'ok', detail: `${where}, every migration applied` }
      : { status: 'warn', detail: `${where}, ${pending.length} migration(s) pending (applied at the next start, or by svc migrate): ${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisCheck(config: Config): Promise<Omit<DoctorCheck, 'name'>> {
  if (!config.REDIS_URL) return { status: 'ok', detail: 'REDIS_URL is not set: caches and rate limits in process, jobs in PostgreSQL' };
  const redis = createRedis(config.REDIS_URL, { retryStrategy: () => null });
  try {
    const ready = await redisReady(redis, DOCTOR_CHECK_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    if (!ready) return { status: 'fail', detail: `${redactedUrl(config.REDIS_URL)} does not answer (no connection within ${DOCTOR_CHECK_TIMEOUT_MS / 1000} s)` };
    const health = await redisHealth(redis, DOCTOR_CHECK_TIMEOUT_MS);
    return health === 'ok' ? { status: 'ok', detail: `${redactedUrl(config.REDIS_URL)} answers` } : { status: 'fail', detail: `${redactedUrl(config.REDIS_URL)} does not answer` };
  } finally {
    redis.disconnect();
  }
}

async function natsCheck(config: Config): Promise<Omit<DoctorCheck, 'name'>> {
  if (!config.NATS_URL) return { status: 'ok', detail: 'NATS_URL is not set: change-feed subscriptions of kind nats are refused' };
  const connection = await connectNats({ servers: config.NATS_URL, timeout: DOCTOR_CHECK_TIMEOUT_MS, reconnect: false });
  try {
    await (await connection.jetstreamManager()).getAccountInfo();
    return { status: 'ok', detail: `${redactedUrl(config.NATS_URL)} answers, with JetStream` };
  } catch (error) {
    return { status: 'fail', detail: `${redactedUrl(config.NATS_URL)} answers, but JetStream does not: ${(error as Error).message}` };
  } finally {
    await connection.close();
  }
}

async function smtpCheck(config: Config): Promise<Omit<DoctorCheck, 'name'>> {
  if (!config.SMTP_URL) return { status: 'warn', detail: 'SMTP_URL is not set: no email is sent (verification, password reset, invitations)' };
  const transport = nodemailer.createTransport({
    url: config.SMTP_URL,
    connectionTimeout: DOCTOR_CHECK_TIMEOUT_MS,
    greetingTimeout: DOCTOR_CHECK_TIMEOUT_MS,
    socketTimeout: DOCTOR_CHECK_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return { status: 'ok', detail: `${redactedUrl(config.SMTP_URL)} accepts a connection` };
  } finally {
    transport.close();
  }
}

async function storageCheck(config: Config): Promise<Omit<DoctorCheck, 'name'>> {
  const storage = createObjectStorage(config);
  await probeStorage(storage);
  return { status: 'ok', detail: config.S3_BUCKET ? `S3 bucket ${config.S3_BUCKET}: an object written and removed` : `${config.dataDir}/objects: an object written and removed` };
}

/** `work`'s answer under `name`; a failure or a timeout is a failed check saying so. */
async function bounded(name: string, work: () => Promise<Omit<DoctorCheck, 'name'>>): Promise<DoctorCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Omit<DoctorCheck, 'name'>>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'fail', detail: `no answer within ${DOCTOR_CHECK_TIMEOUT_MS / 1000} s` }), DOCTOR_CHECK_TIMEOUT_MS + 1_000);
  });
  try {
    const outcome = await Promise.race([work().catch((error: unknown) => ({ status: 'fail' as const, detail: describeError(error) })), timeout]);
    return { name, ...outcome };
  } finally {
    clearTimeout(timer);
  }
}

function describeError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = message && message.trim() !== '' ? message : String(error);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

/** A URL without its password, for the report. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
