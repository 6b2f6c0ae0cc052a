// The `svc` command line: start, migrate, site create, projections status|rebuild, events tail, config export|diff|apply.
// Standard output carries only what a command answers; logs and progress go to standard error
// (docs/cli.md). `svc start` is the service: it logs to standard output.
import v8 from 'node:v8';
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { z } from 'zod';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { readAll, LOG_START, cursorOf } from '../../infra/eventstore/eventStore.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { projections, findProjection } from '../../projections/index.ts';
import { createContext, resolveDatabaseUrl, SERVICE_VERSION } from '../boot/boot.ts';
import { projectionStatus, rebuildProjection } from '../runtime/projectionRunner.ts';
import { createSite } from '../modules/instance/handlers.ts';
import { cliLogger } from './cliLogger.ts';
import { configCommand } from './configCommand.ts';
import { countingLogReads, rebuildProgress } from './rebuildProgress.ts';

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Runs `work` against the configured database as its owner (migrations, rebuilds read every site). */
async function withOwnerDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const settings = config();
  const server = await resolveDatabaseUrl(settings, cliLogger(settings));
  try {
    await migrate(server.url);
    const database = createDatabase({ connectionString: server.url, poolSize: 4, asApplicationRole: false });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  } finally {
    await server.stop();
  }
}

/** The events a rebuild replays (the whole log), for its progress. */
async function countEvents(database: Database): Promise<number> {
  const [row] = await database.withSystem((tx) => tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM events`));
  return row?.total ?? 0;
}

export function buildCli(): Command {
  const program = new Command('svc').description('Event-sourced, multi-tenant headless CMS backend').version(SERVICE_VERSION, '-V, --version', 'print the version');

  program
    .command('start')
    .description('start the HTTP service (embedded PostgreSQL when DATABASE_URL is unset)')
    .action(async () => {
      boundHeapGrowth();
      // Loaded here: the server and every module are only needed by `start`, the other commands start faster.
      const { startService } = await import('../boot/service.ts');
      const service = await startService(config());
      let signals = 0;
      const shutdown = () => {
        signals += 1;
        if (signals > 1) process.exit(1);
        service.context.logger.info('shutting down: finishing in-flight requests');
        void service.stop().then(() => process.exit(0));
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    });

  program
    .command('openapi')
    .description('print the OpenAPI document of the REST API (as GET /api/v1/openapi.json serves it)')
    .option('--out <file>', 'write it to a file instead')
    .action(async (options: { out?: string }) => {
      const { openApiDocument } = await import('../boot/service.ts');
      const current = config();
      const text = `${JSON.stringify(await openApiDocument(current, { logger: cliLogger(current) }), null, 2)}\n`;
      if (options.out) writeFileSync(options.out, text);
      else process.stdout.write(text);
    });

  program
    .command('types')
    .description("write the TypeScript types of a site's collections, for the SDK (sdk/README.md)")
    .requiredOption('--site <id>', 'the site')
    .option('--out <file>', 'write them to a file instead')
    .action(async (flags: { site: string; out?: string }) => (await import('./typesRun.ts')).runTypes(config, flags));

  program
    .command('doctor')
    .description("check this deployment's configuration and connectivity (database, Redis, NATS, SMTP, storage) and say what is wrong")
    .option('--json', 'print {"checks":[{"name","status","detail"}]}')
    .action(async (options: { json?: boolean }) => {
      const { runDoctor, formatDoctor } = await import('./doctor.ts');
      const checks = await runDoctor();
      console.log(options.json ? JSON.stringify({ checks }, null, 2) : formatDoctor(checks));
      // Exit 1 when something must be fixed; warnings alone leave it 0.
      if (checks.some((check) => check.status === 'fail')) process.exitCode = 1;
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const settings = config();
      const server = await resolveDatabaseUrl(settings, cliLogger(settings));
      try {
        const { applied } = await migrate(server.url);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await server.stop();
      }
    });

  const site = program.command('site').description('manage sites');
  site
    .command('create <id>')
    .description('create a site and its first administrator')
    .requiredOption('--admin-email <email>', 'email of the first administrator')
    .requiredOption('--admin-password <password>', 'password of the first administrator')
    .option('--name <name>', 'display name of the site')
    .action(async (id: string, options: { adminEmail: string; adminPassword: string; name?: string }) => {
      // The same rules as POST /instance/sites (the site id's own rule is the site decider's).
      const input = z
        .object({ adminEmail: z.email('--admin-email must be an email address'), adminPassword: z.string().min(8, '--admin-password needs at least 8 characters') })
        .safeParse(options);
      if (!input.success) throw new Error(input.error.issues[0]!.message);
      const settings = config();
      const context = await createContext({ ...settings, LOG_LEVEL: 'warn' }, { runProjections: false, logger: cliLogger(settings) });
      try {
        const created = await createSite(context, { id, name: options.name, adminEmail: options.adminEmail, adminPassword: options.adminPassword }, {
          actor: { kind: 'system', id: 'cli' },
        });
        console.log(JSON.stringify(created));
      } finally {
        await context.close();
      }
    });

  const projectionsCommand = program.command('projections').description('inspect and rebuild read models');
  projectionsCommand
    .command('status')
    .description('checkpoint and lag of every projection')
    .option('--json', 'print {"projections":[{"name","mode","checkpoint","head","lag"}]} (docs/cli.md)')
    .action((options: { json?: boolean }) =>
      withOwnerDatabase(async (database) => {
        const statuses = await projectionStatus(database, projections);
        if (options.json) console.log(JSON.stringify({ projections: statuses }, null, 2));
        else console.table(statuses);
      }),
    );
  projectionsCommand
    .command('rebuild [name]')
    .description('rebuild a read model (or --all) from position 0 of the log')
    .option('--all', 'rebuild every projection')
    .option('--progress', 'report progress on standard error even when it is not a terminal (one line per second)')
    .option('--no-progress', 'report no progress, even on a terminal')
    .action((name: string | undefined, options: { all?: boolean; progress?: boolean }) =>
      withOwnerDatabase(async (database) => {
        const targets = options.all ? projections : name ? [findProjection(name)] : [];
        if (targets.length === 0 || targets.some((p) => !p)) {
          throw new Error(`name a projection (${projections.map((p) => p.name).join(', ')}) or pass --all`);
        }
        // On a terminal unless --no-progress; elsewhere only with --progress.
        const showProgress = options.progress ?? process.stderr.isTTY === true;
        const total = showProgress ? await countEvents(database) : 0;
        for (const projection of targets) {
          const started = Date.now();
          const progress = showProgress ? rebuildProgress({ name: projection!.name, total, output: process.stderr }) : null;
          const result = await rebuildProjection(progress ? countingLogReads(database, progress.applied) : database, projection!);
          progress?.done();
          console.log(`${projection!.name}: replayed ${result.events} events in ${Date.now() - started} ms`);
        }
      }),
    );

  program
    .command('events')
    .description('read the event log')
    .command('tail')
    .description('print events as they are committed (Ctrl-C to stop)')
    .option('--site <site>', 'only this site')
    .option('--from-start', 'print the whole log first')
    .action((options: { site?: string; fromStart?: boolean }) =>
      withOwnerDatabase(async (database) => {
        let cursor = LOG_START;
        if (!options.fromStart) {
          const [head] = await database.query<{ tx_id: string; global_position: number }>(sql`SELECT * FROM svc_log_head()`);
          if (head) cursor = { txId: String(head.tx_id), position: head.global_position };
        }
        const listener = await database.connect();
        await listener.query('LISTEN svc_events');
        let wake: () => void = () => undefined;
        listener.on('notification', () => wake());
        let running = true;
        process.once('SIGINT', () => {
          running = false;
          wake();
        });
        while (running) {
          const batch = await readAll(database, cursor, 500);
          for (const event of batch) {
            if (!options.site || event.siteId === options.site) {
              console.log(JSON.stringify({ position: event.position, site: event.siteId, stream: event.streamId, type: event.type, at: event.recordedAt, actor: event.metadata.actor, data: event.data }));
            }
            cursor = cursorOf(event);
          }
          if (batch.length === 0) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 1000)));
        }
        listener.release();
      }),
    );

  program.addCommand(configCommand(config));

  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

/**
 * Under a high allocation rate V8 lets the old space grow to several times its live size between two
 * full collections: about 64 MB live, 380 MiB resident at the peak of a read load. A growing factor of
 * 2 kept the peak near 250 MiB at the same throughput (docs/performance.md, "Memory"). A
 * --heap-growing-percent given to node itself wins.
 */
function boundHeapGrowth(): void {
  if (process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString('--heap-growing-percent=100');
}
