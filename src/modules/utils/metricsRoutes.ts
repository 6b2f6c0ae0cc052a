// GET /metrics (spec "Utilities"): the Prometheus text of this instance's registry, when SVC_METRICS
// is set. On SVC_METRICS_PORT it is served by a listener of its own that answers nothing else (a
// port kept off the public network, so no credential); without it, at /api/v1/metrics behind the
// instance token, so the figures of every site together are never public.
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../runtime/context.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

export async function metricsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const { config, metrics } = context;
  if (!config.SVC_METRICS) return;
  if (config.SVC_METRICS_PORT !== undefined) {
    const server = await listenForScrapes(context, config.SVC_METRICS_PORT);
    context.onClose(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return;
  }
  // Not in the OpenAPI document: a route of the deployment's configuration, for its operators (docs/operations.md).
  app.get('/metrics', { config: { access: 'instance' }, schema: { tags: ['utils'], hide: true } }, async (_request, reply) => {
    return reply.type(metrics.contentType).header('Cache-Control', 'no-store').send(await metrics.render());
  });
}

async function listenForScrapes(context: AppContext, port: number): Promise<Server> {
  const { metrics } = context;
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics port serves GET /metrics only\n');
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(text),
      (error: unknown) => {
        context.logger.error({ err: error }, 'metrics could not be rendered');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be rendered\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, context.config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  context.logger.info({ port }, 'metrics served on their own port');
  return server;
}
