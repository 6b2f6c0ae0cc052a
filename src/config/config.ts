// Environment of the service, validated once at start. A bad value stops the start with one line naming it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseKeyRing } from '../../infra/crypto/keyRing.ts';
import { createSigningKey } from '../../infra/crypto/signing.ts';
import { parseTrustedKeys } from '../../infra/extensions/trustedKeys.ts';
import '../../domain/shared/zodMessages.ts';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** A duration: "7d", "12h", "30m", "45s", "250ms", or a plain number of seconds; parsed to milliseconds. */
const durationMs = z
  .union([z.number(), z.string().regex(/^\s*\d+\s*(ms|s|m|h|d)?\s*$/, 'must be a duration such as 7d, 12h, 30m, 45s or 250ms')])
  .transform((value) => {
    if (typeof value === 'number') return value * 1000;
    const [, amount, unit] = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(value)!;
    return Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(unit ?? 's') as 'ms' | 's' | 'm' | 'h' | 'd'];
  })
  .pipe(z.number().int().min(1000, 'must be at least one second'));

/** Names proxy-addr (Fastify's trustProxy) gives to address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  // A /0 range is every address: the same as trusting whatever the client writes.
  return Number(prefix) >= 1 && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * A hop count as Fastify's trustProxy takes it: a trust function over (address, hop), hop 0 being the
 * socket's peer (Fastify reads a bare number as "trust nothing"). `hops` says what it was set to.
 */
export type TrustedProxyHops = ((address: string, hop: number) => boolean) & { readonly hops: number };

function trustedHops(hops: number): TrustedProxyHops {
  return Object.assign((_address: string, hop: number) => hop < hops, { hops });
}

/**
 * The proxies in front of the service whose X-Forwarded-For entries are believed (Fastify's
 * trustProxy): `false` (none), a hop count (the client IP is that many entries from the right), or a
 * list of proxy addresses/CIDRs. Never "trust every hop": the left-most entry is the client's to write.
 * The legacy `true` means one hop (a warning at start, see configWarnings).
 */
const trustedProxies = z
  .string()
  .optional()
  .transform((value, context): false | TrustedProxyHops | string[] => {
    const text = (value ?? '').trim();
    if (text === '' || text === 'false' || text === '0') return false;
    if (text === 'true') return trustedHops(1);
    if (/^\d+$/.test(text)) {
      const hops = Number(text);
      if (hops > 16) context.addIssue({ code: 'custom', message: 'a hop count is at most 16' });
      return trustedHops(hops);
    }
    const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
    const bad = entries.find((entry) => !isProxyAddress(entry));
    if (bad !== undefined || entries.length === 0) {
      context.addIssue({
        code: 'custom',
        message: `must be false, a hop count (e.g. 1) or comma-separated proxy addresses/CIDRs (not /0)${bad === undefined ? '' : `; "${bad}" is none of them`}`,
      });
    }
    return entries;
  });

/**
 * What is wrong with `text` as a CORS origin, or null: an origin is `scheme://host[:port]` exactly as
 * a browser sends it in its Origin header (http or https, lower case, no path, no default port), one
 * site each: no wildcard.
 */
export function originProblem(text: string): string | null {
  if (text.includes('*')) return `"${text}": wildcards are not allowed; list each origin (e.g. https://app.example.com)`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not an origin: scheme://host[:port], e.g. https://app.example.com`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${text}" is not an origin: the scheme is http or https`;
  if (url.origin !== text) return `"${text}" is not an origin as a browser sends it: scheme://host[:port] with no path, e.g. "${url.origin}"`;
  return null;
}

/** The CORS origins of the environment: exact origins (credentialed), or `*` for any origin without credentials. */
export interface CorsOriginList {
  origins: ReadonlySet<string>;
  anyOrigin: boolean;
}

const corsOriginList = z
  .string()
  .optional()
  .transform((value, context): CorsOriginList => {
    const entries = (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    const origins = new Set<string>();
    let anyOrigin = false;
    for (const entry of entries) {
      if (entry === '*') {
        anyOrigin = true;
        continue;
      }
      const problem = originProblem(entry);
      if (problem) context.addIssue({ code: 'custom', message: `${problem} (comma-separated origins, or * for any origin without credentials)` });
      origins.add(entry);
    }
    return { origins, anyOrigin };
  });

const environmentSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  SVC_DATA_DIR: z.string().min(1).default('./.svc-data'),
  SVC_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  SVC_INSTANCE_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_BOOTSTRAP_SITE: optionalString.pipe(z.string().regex(/^[a-z0-9][a-z0-9_-]{1,62}$/).optional()),
  SVC_BOOTSTRAP_ADMIN_EMAIL: optionalString.pipe(z.email().optional()),
  SVC_BOOTSTRAP_ADMIN_PASSWORD: optionalString.pipe(z.string().min(8).optional()),
  SVC_SITE_DOMAIN: optionalString,
  SVC_ACCESS_TOKEN_TTL: z.coerce.number().int().min(30).max(86_400).default(900),
  SVC_REFRESH_TOKEN_TTL: z.coerce.number().int().min(60).default(30 * 86_400),
  SVC_COOKIE_SECURE: booleanFlag,
  SVC_COOKIE_SAME_SITE: z.enum(['strict', 'lax', 'none']).default('lax'),
  SVC_COOKIE_DOMAIN: optionalString,
  /** The built Studio served at /studio (default: studio/dist of this checkout). */
  SVC_STUDIO_DIR: optionalString,
  /** Browser origins allowed to call the API on every site, with credentials (docs/security.md, CORS); `*` lets any origin call it without credentials. */
  SVC_CORS_ORIGINS: corsOriginList,
  SVC_BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Serve the Prometheus metrics (docs/operations.md): on SVC_METRICS_PORT when set, else at /api/v1/metrics behind the instance token. */
  SVC_METRICS: booleanFlag,
  SVC_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** The reverse proxies whose X-Forwarded-For is believed (client IPs for rate limits and sessions): a hop count or addresses/CIDRs. */
  SVC_TRUST_PROXY: trustedProxies,
  SVC_DB_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(20),
  SVC_PROJECTION_POLL_MS: z.coerce.number().int().min(50).default(1000),
  SVC_PROJECTION_ROUND_MS: z.coerce.number().int().min(0).max(1000).default(20),
  SVC_PROJECTION_LANES: z.coerce.number().int().min(1).max(8).default(2),
  /** Fallback poll of the field index builder (it wakes on schema commits first); also how soon a standby takes over. */
  SVC_FIELD_INDEX_POLL_MS: z.coerce.number().int().min(50).default(2000),
  // Identity: mail, emailed links and token lifetimes (seconds).
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
  SVC_MAIL_FROM: z.string().min(3).default('Svc <no-reply@localhost>'),
  SVC_PUBLIC_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
  SVC_EMAIL_VERIFICATION_TTL: z.coerce.number().int().min(60).default(48 * 3600),
  SVC_PASSWORD_RESET_TTL: z.coerce.number().int().min(60).default(3600),
  SVC_INVITE_TTL: z.coerce.number().int().min(60).default(7 * 86_400),
  // Site email (docs/email.md): queued batches in flight, pooled SMTP connections, retries of deferrals.
  SVC_EMAIL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SVC_EMAIL_SMTP_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(5),
  SVC_EMAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  SVC_EMAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).default(60_000),
  // Flows (docs/flows.md): the loop guard, concurrency, the run timeout, retention, the webhook limit, private targets.
  SVC_FLOW_MAX_CHAIN: z.coerce.number().int().min(0).max(20).default(3),
  SVC_FLOW_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  SVC_FLOW_SITE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SVC_FLOW_RUN_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  SVC_FLOW_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  SVC_FLOW_TRIGGER_RATE_LIMIT: z.coerce.number().int().min(0).default(600),
  SVC_FLOW_ALLOW_PRIVATE: booleanFlag,
  SVC_EMAIL_UNSUBSCRIBE_MAILTO: optionalString.pipe(z.email().optional()),
  // Translation memory (docs/translation.md): the provider of POST /tm/translate's last stage (unset: none), its base URL, key, model (OpenAI-compatible) and timeout.
  SVC_TRANSLATE_PROVIDER: optionalString.pipe(z.enum(['deepl', 'openai']).optional()),
  SVC_TRANSLATE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  SVC_TRANSLATE_API_KEY: optionalString,
  SVC_TRANSLATE_MODEL: z.string().trim().min(1).max(200).default('gpt-4o-mini'),
  SVC_TRANSLATE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Trusted issuers: public key sets are cached; an unknown kid refetches after the cooldown.
  SVC_JWKS_CACHE_SECONDS: z.coerce.number().int().min(0).default(600),
  SVC_JWKS_COOLDOWN_SECONDS: z.coerce.number().int().min(0).default(30),
  SVC_JWKS_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  // Let trusted issuers' key sets live on private or loopback addresses (always allowed in development).
  SVC_ISSUER_ALLOW_PRIVATE: booleanFlag,
  // Rate limits: requests per window (0 disables a scope); Redis when REDIS_URL is set.
  SVC_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  SVC_RATE_LIMIT_AUTH: z.coerce.number().int().min(0).default(30),
  SVC_RATE_LIMIT_ITEMS_READ: z.coerce.number().int().min(0).default(6000),
  SVC_RATE_LIMIT_ITEMS_WRITE: z.coerce.number().int().min(0).default(600),
  SVC_RATE_LIMIT_FILE_UPLOAD: z.coerce.number().int().min(0).default(100),
  SVC_RATE_LIMIT_AI_CHAT: z.coerce.number().int().min(0).default(60),
  SVC_RATE_LIMIT_SITE_LOOKUP: z.coerce.number().int().min(0).default(600),
  /** Unsubscribes per client IP and window: mail providers post one-click unsubscribes for many recipients from few addresses. */
  SVC_RATE_LIMIT_UNSUBSCRIBE: z.coerce.number().int().min(0).default(600),
  SVC_RATE_LIMIT_FAIL_CLOSED: booleanFlag,
  // Failed sign-ins per account (site and normalized email, whatever the IP; src/modules/auth/signInLimits.ts): this many
  // are free (0 turns the account limit off), then each failure locks the account 1 s, 2 s, 4 s … up to the lockout.
  SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: z.coerce.number().int().min(0).default(5),
  SVC_SIGNIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  // Failed sign-ins recorded as one event each per account, client IP and window; the rest of a window are one event with their count.
  SVC_SIGNIN_FAILURE_EVENTS: z.coerce.number().int().min(1).default(5),
  SVC_SIGNIN_FAILURE_EVENTS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  // Change feed, webhooks, realtime and web push (durations in milliseconds unless named otherwise).
  SVC_CDC_RETENTION: durationMs.default(7 * 86_400_000),
  /** POST /retention/run removes sessions ended more than this many days ago (docs/privacy.md). */
  SVC_RETENTION_SESSIONS_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** The scheduler tick (due releases, change-feed retention, item counts); unset: SVC_SCHEDULER_INTERVAL_MS, else 5 s. */
  SVC_SCHEDULER_TICK_MS: z.coerce.number().int().min(100).optional(),
  /** Deprecated alias of SVC_SCHEDULER_TICK_MS, used only when that is unset. */
  SVC_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).optional(),
  SVC_WEBHOOK_ALLOW_PRIVATE: booleanFlag,
  SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SVC_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(15),
  SVC_WEBHOOK_BACKOFF_BASE_MS: z.coerce.number().int().min(10).default(2_000),
  SVC_WEBHOOK_BACKOFF_MAX_MS: z.coerce.number().int().min(10).default(900_000),
  SVC_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  SVC_WEBHOOK_SWEEP_MS: z.coerce.number().int().min(100).default(5_000),
  SVC_REALTIME_MAX_CONNECTIONS_PER_SITE: z.coerce.number().int().min(1).default(50),
  SVC_REALTIME_HEARTBEAT_MS: z.coerce.number().int().min(50).default(25_000),
  SVC_REALTIME_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  SVC_VAPID_PUBLIC_KEY: optionalString.pipe(z.string().regex(/^[A-Za-z0-9_-]{80,100}$/, 'must be a base64url P-256 public key').optional()),
  SVC_VAPID_PRIVATE_KEY: optionalString.pipe(z.string().regex(/^[A-Za-z0-9_-]{40,50}$/, 'must be a base64url P-256 private key').optional()),
  SVC_VAPID_SUBJECT: z.string().regex(/^(mailto:|https:\/\/)\S+$/, 'must be a mailto: or https: URL').default('mailto:webpush@localhost'),
  // GraphQL: the cost budget of one operation (its depth limit, 12, is fixed; src/modules/graphql/limits.ts).
  SVC_GQL_MAX_COST: z.coerce.number().int().min(1).default(1000),
  SVC_GQL_DEFAULT_LIST_SIZE: z.coerce.number().int().min(1).default(20),
  SVC_GQL_MAX_LIST_MULTIPLIER: z.coerce.number().int().min(1).default(100),
  // Pageviews (docs/delivery.md): how often buffered counts are written, and beacon hits per client IP per rate-limit window (0 disables).
  SVC_PAGEVIEW_FLUSH_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  SVC_PAGEVIEW_RATE_LIMIT: z.coerce.number().int().min(0).default(600),
  // Public delivery (docs/delivery.md): per-IP requests per rate-limit window (0 disables), shared-cache lifetimes in seconds, and the negative cache in seconds.
  SVC_DELIVER_RATE_LIMIT: z.coerce.number().int().min(0).default(1200),
  SVC_DELIVER_SMAXAGE: z.coerce.number().int().min(0).default(60),
  SVC_DELIVER_SWR: z.coerce.number().int().min(0).default(300),
  SVC_NEGATIVE_CACHE_TTL: z.coerce.number().int().min(0).default(30),
  // Item reads by id (docs/items.md "The read cache"): answers kept in this instance's memory at most, retired by any write of their site (0 disables).
  SVC_ITEM_READ_CACHE: z.coerce.number().int().min(0).max(1_000_000).default(5_000),
  // Insights (docs/insights.md): how long a panel's result is kept in this instance's memory, in seconds (0 disables).
  SVC_PANEL_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(10),
  // The MCP endpoint (docs/mcp.md): POST /mcp serves the skills as MCP tools only when on; off, it answers 404.
  SVC_MCP_ENABLED: booleanFlag,
  // The copilot's provider (docs/ai-copilot.md): an OpenAI-compatible chat-completions API with tool calling when SVC_AI_BASE_URL is set
  // (its key sent as a bearer token, none for a local server), else the built-in intent parser; one call's time limit; streamed answers.
  SVC_AI_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  SVC_AI_API_KEY: optionalString,
  SVC_AI_MODEL: z.string().trim().min(1).max(200).default('gpt-4o-mini'),
  SVC_AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
  SVC_AI_STREAM: booleanFlag,
  // Cloud-sync pipelines (docs/integrations.md): the document database's REST base URL and OAuth token endpoint (Google's by
  // default; a local server in tests), one push's time limit, and how many items a backfill call pushes before it answers truncated.
  SVC_CLOUD_SYNC_FIRESTORE_URL: z.url({ protocol: /^https?$/ }).default('https://firestore.googleapis.com'),
  SVC_CLOUD_SYNC_TOKEN_URL: z.url({ protocol: /^https?$/ }).default('https://oauth2.googleapis.com/token'),
  SVC_CLOUD_SYNC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SVC_CLOUD_SYNC_BACKFILL_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  // Extensions (docs/extensions.md): the Ed25519 keys whose signatures make a bundle trusted, comma-separated `keyId:publicKey`
  // (base64 of the raw 32-byte key, or of its DER SubjectPublicKeyInfo), `:official` after a key that may sign the `@svc/` namespace.
  SVC_EXTENSION_TRUSTED_KEYS: optionalString,
  // Git integrations (docs/integrations.md): the providers' API and OAuth base URLs (the public hosts by default; a
  // self-managed GitLab, or a local server in tests), their OAuth apps (unset: OAuth is refused, tokens still work) and one call's time limit.
  SVC_GIT_GITHUB_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.github.com'),
  SVC_GIT_GITHUB_URL: z.url({ protocol: /^https?$/ }).default('https://github.com'),
  SVC_GIT_GITHUB_CLIENT_ID: optionalString,
  SVC_GIT_GITHUB_CLIENT_SECRET: optionalString,
  SVC_GIT_GITLAB_URL: z.url({ protocol: /^https?$/ }).default('https://gitlab.com'),
  SVC_GIT_GITLAB_CLIENT_ID: optionalString,
  SVC_GIT_GITLAB_CLIENT_SECRET: optionalString,
  SVC_GIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // The change feed's NATS JetStream sink (docs/change-feed.md): subscriptions of kind nats publish to this server; unset, they are refused.
  NATS_URL: optionalString.pipe(z.url({ protocol: /^(nats|tls)$/ }).optional()),
  // Object storage (infra/storage): an S3 bucket when S3_BUCKET is set, else the folder <SVC_DATA_DIR>/objects.
  S3_BUCKET: optionalString,
  S3_ENDPOINT: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: booleanFlag,
  // Upload policy defaults (docs/files.md): used where a site has no upload_policy setting. Lists are comma-separated; empty does not restrict.
  FILE_UPLOAD_MAX_BYTES: z.coerce.number().int().min(1).optional(),
  FILE_UPLOAD_ALLOWED_MIME_TYPES: z.string().optional(),
  FILE_UPLOAD_ALLOWED_EXTENSIONS: z.string().optional(),
  // Image transforms (src/modules/files/imageTransformer.ts): largest source (width × height, against decompression bombs), time per render, renders at once per instance.
  MEDIA_TRANSFORM_MAX_INPUT_PIXELS: z.coerce.number().int().min(1).max(268_402_689).default(50_000_000),
  MEDIA_TRANSFORM_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(10_000),
  MEDIA_TRANSFORM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  // Field encryption and signing (docs/privacy.md): `id:base64` pairs of 32-byte keys, comma-separated (unset: one key derived from SVC_SECRET);
  // the Ed25519 key that signs log checkpoints and erasure receipts (PKCS#8 PEM or base64 32-byte seed; unset: derived from SVC_SECRET).
  SVC_ENCRYPTION_KEYS: optionalString,
  SVC_SIGNING_KEY: optionalString,
  /** A signed checkpoint of a site's log is taken once this many events follow the last one, or SVC_CHECKPOINT_INTERVAL after it when any do. */
  SVC_CHECKPOINT_EVERY: z.coerce.number().int().min(1).default(1000),
  SVC_CHECKPOINT_INTERVAL: durationMs.default(3_600_000),
});

export type Config = Omit<z.infer<typeof environmentSchema>, 'SVC_SECRET' | 'SVC_SCHEDULER_TICK_MS'> & {
  SVC_SECRET: string;
  SVC_SCHEDULER_TICK_MS: number;
  dataDir: string;
};

const DEFAULT_SCHEDULER_TICK_MS = 5_000;

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line naming the first bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  const values = parsed.data;
  const bootstrap = [values.SVC_BOOTSTRAP_SITE, values.SVC_BOOTSTRAP_ADMIN_EMAIL, values.SVC_BOOTSTRAP_ADMIN_PASSWORD];
  if (bootstrap.some(Boolean) && !bootstrap.every(Boolean)) {
    throw new ConfigError(
      'invalid environment variable SVC_BOOTSTRAP_SITE: SVC_BOOTSTRAP_SITE, SVC_BOOTSTRAP_ADMIN_EMAIL and SVC_BOOTSTRAP_ADMIN_PASSWORD go together',
    );
  }
  if (Boolean(values.SVC_VAPID_PUBLIC_KEY) !== Boolean(values.SVC_VAPID_PRIVATE_KEY)) {
    throw new ConfigError('invalid environment variable SVC_VAPID_PUBLIC_KEY: SVC_VAPID_PUBLIC_KEY and SVC_VAPID_PRIVATE_KEY go together');
  }
  if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('invalid environment variable S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  }
  if (!values.S3_BUCKET && (values.S3_ENDPOINT || values.S3_ACCESS_KEY_ID)) {
    throw new ConfigError('invalid environment variable S3_BUCKET: required when S3_ENDPOINT or S3_ACCESS_KEY_ID is set');
  }
  if (values.SVC_TRANSLATE_PROVIDER && !values.SVC_TRANSLATE_API_KEY) {
    throw new ConfigError('invalid environment variable SVC_TRANSLATE_API_KEY: required when SVC_TRANSLATE_PROVIDER is set');
  }
  const dataDir = resolve(values.SVC_DATA_DIR);
  const secret = values.SVC_SECRET ?? deploymentSecret(values.NODE_ENV, dataDir);
  try {
    parseKeyRing(values.SVC_ENCRYPTION_KEYS, secret);
  } catch (error) {
    throw new ConfigError(`invalid environment variable SVC_ENCRYPTION_KEYS: ${(error as Error).message}`);
  }
  try {
    createSigningKey(values.SVC_SIGNING_KEY, secret);
  } catch (error) {
    throw new ConfigError(`invalid environment variable SVC_SIGNING_KEY: ${(error as Error).message}`);
  }
  try {
    parseTrustedKeys(values.SVC_EXTENSION_TRUSTED_KEYS);
  } catch (error) {
    throw new ConfigError(`invalid environment variable SVC_EXTENSION_TRUSTED_KEYS: ${(error as Error).message}`);
  }
  return {
    ...values,
    dataDir,
    SVC_SECRET: secret,
    SVC_SCHEDULER_TICK_MS: values.SVC_SCHEDULER_TICK_MS ?? values.SVC_SCHEDULER_INTERVAL_MS ?? DEFAULT_SCHEDULER_TICK_MS,
  };
}

/**
 * Settings that weaken a defence (docs/security.md), one line each, for the boot to log as warnings.
 * `environment` is what was parsed, to tell a legacy value from its meaning.
 */
export function configWarnings(config: Config, environment: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  if (environment.SVC_TRUST_PROXY?.trim() === 'true') {
    warnings.push('SVC_TRUST_PROXY=true is read as 1 (one proxy hop): set the number of proxies in front of the service, or their addresses');
  }
  if (config.SVC_SIGNIN_FAILURES_BEFORE_BACKOFF === 0) {
    warnings.push('SVC_SIGNIN_FAILURES_BEFORE_BACKOFF=0: the per-account limit on failed sign-ins is off; password guessing is limited by client IP only');
  }
  if (config.SVC_RATE_LIMIT_AUTH === 0) {
    warnings.push('SVC_RATE_LIMIT_AUTH=0: the per-IP limit of the auth endpoints is off');
  }
  if (config.SVC_RATE_LIMIT_SITE_LOOKUP === 0) {
    warnings.push('SVC_RATE_LIMIT_SITE_LOOKUP=0: a client naming unknown sites costs a database query per request, unlimited');
  }
  if (config.SVC_WEBHOOK_ALLOW_PRIVATE) {
    warnings.push('SVC_WEBHOOK_ALLOW_PRIVATE=true: webhooks, web push and cloud sync may reach loopback, private and cloud metadata addresses');
  }
  if (config.SVC_FLOW_ALLOW_PRIVATE) {
    warnings.push('SVC_FLOW_ALLOW_PRIVATE=true: the request operation of flows may reach loopback, private and cloud metadata addresses');
  }
  if (config.SVC_ISSUER_ALLOW_PRIVATE) {
    warnings.push('SVC_ISSUER_ALLOW_PRIVATE=true: trusted issuers\' key sets may be fetched from loopback, private and cloud metadata addresses');
  }
  if (config.SVC_CORS_ORIGINS.anyOrigin) {
    warnings.push('SVC_CORS_ORIGINS=*: any web page may call the API from a browser (without credentials: cookies are not sent)');
  }
  if (config.SVC_COOKIE_SAME_SITE === 'none') {
    warnings.push('SVC_COOKIE_SAME_SITE=none: the refresh cookie is sent on cross-site requests (the X-Svc-Refresh header is the only CSRF brake)');
  }
  return warnings;
}

/** Outside production a missing SVC_SECRET is generated once and kept in the data dir. */
function deploymentSecret(nodeEnvironment: string, dataDir: string): string {
  if (nodeEnvironment === 'production') {
    throw new ConfigError('invalid environment variable SVC_SECRET: required in production');
  }
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
