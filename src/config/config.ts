// Environment of the service, validated once at start. A bad value stops the start with one line naming it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

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
  SVC_BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024),
  SVC_DB_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(20),
  SVC_PROJECTION_POLL_MS: z.coerce.number().int().min(50).default(1000),
});

export type Config = Omit<z.infer<typeof environmentSchema>, 'SVC_SECRET'> & {
  SVC_SECRET: string;
  dataDir: string;
};

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
  const dataDir = resolve(values.SVC_DATA_DIR);
  return { ...values, dataDir, SVC_SECRET: values.SVC_SECRET ?? deploymentSecret(values.NODE_ENV, dataDir) };
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
