// POST /flows/:id/trigger (docs/flows.md "Webhook"): no session and no site header (the flow's id
// names its site); the flow's token in `x-flow-token` or as Bearer; the input is the body, the headers
// without credentials, and the query.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { acceptFormBodies } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { findWebhookFlow } from './queries.ts';
import { runStartedSchema, type RunStarted } from './schemas.ts';

const FORM_LIMIT = 64 * 1024;
/** Headers that carry credentials: never part of a run's input (runs are recorded). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'x-flow-token', 'x-api-key', 'proxy-authorization', 'x-svc-refresh', 'set-cookie']);

function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers['x-flow-token'];
  if (typeof header === 'string' && header.length > 0) return header;
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return bearer?.[1] ?? null;
}

function inputHeaders(request: FastifyRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.headers)
      .filter(([name, value]) => !CREDENTIAL_HEADERS.has(name) && value !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );
}

export async function flowWebhookRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  acceptFormBodies(app, FORM_LIMIT);
  const config = {
    site: 'none' as const,
    access: 'public' as const,
    rateLimit: { name: 'flowTrigger', limit: context.config.SVC_FLOW_TRIGGER_RATE_LIMIT, per: 'ip' as const },
  };

  api.post(
    '/flows/:id/trigger',
    { config, schema: { tags: ['flows'], params: z.object({ id: z.string() }), body: z.unknown(), response: { 202: z.object({ data: runStartedSchema }) } } },
    async (request, reply) => {
      const { id } = request.params;
      const found = isUuid(id) ? await findWebhookFlow(context.database, id) : null;
      if (!found) throw errors.notFound('Flow not found');
      const started = await context.commands.run<RunStarted>(
        'flows.trigger',
        { id, token: tokenOf(request), body: request.body ?? null, headers: inputHeaders(request), query: request.query as Record<string, unknown> },
        { siteId: found.siteId, principal: { kind: 'anonymous' }, metadata: request.metadata },
      );
      return reply.status(202).send({ data: started });
    },
  );
}
