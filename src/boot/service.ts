// `svc start`: the service with its HTTP server, bootstrap site and graceful shutdown.
import type { FastifyInstance } from 'fastify';
import { configWarnings, type Config } from '../config/config.ts';
import { bootstrapSite } from '../modules/instance/handlers.ts';
import { buildServer } from '../server/app.ts';
import { createContext, type ContextOptions } from './boot.ts';
import type { AppContext } from '../runtime/context.ts';

export interface RunningService {
  context: AppContext;
  server: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

export async function startService(config: Config): Promise<RunningService> {
  const context = await createContext(config);
  // Settings that weaken a defence (docs/security.md), once each.
  for (const warning of configWarnings(config)) context.logger.warn(warning);
  try {
    await bootstrapSite(context);
    const server = await buildServer(context);
    const address = await server.listen({ host: config.HOST, port: config.PORT });
    context.logger.info({ address }, 'svc listening');
    let stopping: Promise<void> | null = null;
    return {
      context,
      server,
      url: address,
      stop() {
        // In-flight requests finish (Fastify waits for them); then background parts stop, then the pool.
        stopping ??= server.close().then(() => context.close());
        return stopping;
      },
    };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/**
 * The OpenAPI document the service serves at /api/v1/openapi.json, without listening and without its
 * background parts (`svc openapi`, the SDK's type generator). It needs the database the routes are
 * built over (DATABASE_URL, or the embedded one).
 */
export async function openApiDocument(config: Config, options: Pick<ContextOptions, 'logger'> = {}): Promise<unknown> {
  const context = await createContext(config, { ...options, runProjections: false });
  try {
    const server = await buildServer(context);
    await server.ready();
    const document = server.swagger();
    await server.close();
    return document;
  } finally {
    await context.close();
  }
}
