// Builds the running service: database (embedded or DATABASE_URL), migrations, the log notifier,
// the projection daemon, the field index builder and the scheduler, and tears them down in reverse order.
import { readFileSync } from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createLogNotifier } from '../../infra/eventstore/logNotifier.ts';
import { sampleDatabase } from '../../infra/metrics/databaseMetrics.ts';
import { createMetrics } from '../../infra/metrics/metrics.ts';
import { createDatabase } from '../../infra/postgres/database.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { projections } from '../../projections/index.ts';
import { createGrantsCache } from '../access/grantsCache.ts';
import { createIdentityServices } from '../auth/identityServices.ts';
import { parseKeyRing } from '../../infra/crypto/keyRing.ts';
import { createSigningKey } from '../../infra/crypto/signing.ts';
import type { Config } from '../config/config.ts';
import { createStreamStarts } from '../runtime/streamStarts.ts';
import { createStreamHeads } from '../runtime/streamHeads.ts';
import { createItemHooks } from '../runtime/itemHooks.ts';
import { createAppCommandRegistry } from '../runtime/appCommand.ts';
import { areaCommands } from '../modules/commands.ts';
import { areas } from '../modules/index.ts';
import { createSchemaCache } from '../schema/schemaCache.ts';
import { createFieldIndexBuilder } from '../runtime/fieldIndexBuilder.ts';
import type { AppContext } from '../runtime/context.ts';
import { createProjectionDaemon } from '../runtime/projectionDaemon.ts';
import { throttleOutageLogs } from './outageLogThrottle.ts';
import { startScheduler } from './scheduler.ts';

export const SERVICE_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** The service's logger; `destination` (default stdout) lets a test read the lines. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.LOG_LEVEL,
    base: { service: 'svc' },
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    // An outage's repeated failures: one line per message per interval, with a count of the rest.
    hooks: { logMethod: throttleOutageLogs() },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** The PostgreSQL to use: DATABASE_URL, or the embedded server in the data dir. */
export async function resolveDatabaseUrl(config: Config, logger: Logger): Promise<{ url: string; stop: () => Promise<void> }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => undefined };
  logger.info({ dataDir: config.dataDir }, 'no DATABASE_URL: starting the embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres(config.dataDir, {
    log: (line) => logger.debug({ postgres: line }),
    warn: (line) => logger.warn(line),
  });
  return { url: embedded.connectionString, stop: embedded.stop };
}

export interface ContextOptions {
  logger?: Logger;
  /** Start the async projection daemon, the field index builder and the scheduler (default true). */
  runProjections?: boolean;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext & { databaseUrl: string }> {
  const logger = options.logger ?? createLogger(config);
  const closeHooks: (() => Promise<void>)[] = [];
  const databaseServer = await resolveDatabaseUrl(config, logger);
  closeHooks.push(databaseServer.stop);
  const { applied } = await migrate(databaseServer.url);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const database = createDatabase({ connectionString: databaseServer.url, poolSize: config.SVC_DB_POOL_SIZE });
  closeHooks.push(() => database.close());
  const notifier = await createLogNotifier(() => database.connect());
  closeHooks.push(() => notifier.close());
  const daemon = createProjectionDaemon({ database, notifier, projections, pollMs: config.SVC_PROJECTION_POLL_MS, roundMs: config.SVC_PROJECTION_ROUND_MS, lanes: config.SVC_PROJECTION_LANES, logger });
  closeHooks.push(() => daemon.stop());
  // DDL on `items` needs its owner: the builder connects with the URL's own role, not the application role.
  const fieldIndexBuilder = createFieldIndexBuilder({ connectionString: databaseServer.url, notifier, logger, pollMs: config.SVC_FIELD_INDEX_POLL_MS });
  closeHooks.push(() => fieldIndexBuilder.stop());
  const schemas = createSchemaCache({ database, notifier });
  closeHooks.push(async () => schemas.close());
  const grants = createGrantsCache({ database, notifier });
  closeHooks.push(async () => grants.close());
  const identity = createIdentityServices({ config, logger, version: SERVICE_VERSION });
  closeHooks.push(() => identity.close());
  const metrics = createMetrics();
  sampleDatabase(metrics, database);
  metrics.cache('schema', schemas.stats);
  metrics.cache('grants', grants.stats);
  const context: AppContext & { databaseUrl: string } = {
    config,
    database,
    databaseUrl: databaseServer.url,
    notifier,
    projections,
    schemas,
    grants,
    identity: identity.services,
    streamStarts: createStreamStarts({ database, projections }),
    streamHeads: createStreamHeads(),
    itemHooks: createItemHooks(logger),
    commands: createAppCommandRegistry(areaCommands, () => context),
    daemon,
    fieldIndexBuilder,
    keyRing: parseKeyRing(config.SVC_ENCRYPTION_KEYS, config.SVC_SECRET),
    signingKey: createSigningKey(config.SVC_SIGNING_KEY, config.SVC_SECRET),
    metrics,
    logger,
    version: SERVICE_VERSION,
    startedAt: new Date(),
    onClose(hook) {
      closeHooks.push(hook);
    },
    async close() {
      // Each part gets a bounded time to stop: a part stuck on a dependency that went away (a
      // connection to a database that restarted, say) is logged and left, never hangs the shutdown.
      for (const hook of closeHooks.splice(0).reverse()) {
        await boundedClose(hook, CLOSE_HOOK_TIMEOUT_MS).catch((error: unknown) => logger.error({ err: error }, 'error while closing'));
      }
    },
  };
  // Item-write hooks of the areas' manifests (docs/architecture.md, "Item-write hooks").
  for (const area of areas) for (const hook of area.itemHooks ?? []) context.itemHooks.register(hook(context));
  if (options.runProjections !== false) {
    await daemon.start();
    fieldIndexBuilder.start();
    if (config.SVC_SCHEDULER_INTERVAL_MS !== undefined) logger.warn('SVC_SCHEDULER_INTERVAL_MS is deprecated: set SVC_SCHEDULER_TICK_MS instead');
    const scheduler = startScheduler(context, { intervalMs: config.SVC_SCHEDULER_TICK_MS });
    closeHooks.push(() => scheduler.stop());
  }
  return context;
}

/** How long one part of the context may take to stop before the shutdown goes on without it. */
const CLOSE_HOOK_TIMEOUT_MS = 15_000;

async function boundedClose(hook: () => Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a part did not stop within ${timeoutMs} ms: ${hook.toString().slice(0, 120)}`)), timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([hook(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
