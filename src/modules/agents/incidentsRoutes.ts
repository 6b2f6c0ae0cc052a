// /agent/incidents (docs/agent-goals.md "Incidents"): the site's agent incidents, one of them, raising
// one (the capability agents:incident: an agent's key, an integration; rate-limited as the chat) and
// resolving one (site administrators).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { agentWorkCommands } from './agentWorkCommands.ts';
import { findIncident, listIncidents } from './agentWorkQueries.ts';
import { incidentSchema, raiseIncidentBody, resolveIncidentBody } from './agentWorkSchemas.ts';

const tags = ['agents'];
const MEMBER = { site: 'required', access: 'bearer' } as const;
const idParams = z.object({ id: z.string() });

export async function agentIncidentsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/incidents',
    {
      config: MEMBER,
      schema: {
        tags,
        querystring: pageQuery.extend({ status: z.enum(['open', 'resolved']).optional(), role: z.string().max(100).optional() }),
        response: { 200: z.object({ data: z.array(incidentSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { incidents, total } = await context.database.withSiteReads(request.siteId, (tx) => listIncidents(tx, request.siteId, request.query));
      return { data: incidents, meta: pageMeta(total, request.query) };
    },
  );
  api.get('/agent/incidents/:id', { config: MEMBER, schema: { tags, params: idParams, response: { 200: z.object({ data: incidentSchema }) } } }, async (request) => {
    const incident = await context.database.withSiteReads(request.siteId, (tx) => findIncident(tx, request.siteId, uuidOr404(request.params.id, 'Incident')));
    if (!incident) throw errors.notFound('Incident not found');
    return { data: incident };
  });
  api.post('/agent/incidents', { config: { ...MEMBER, rateLimit: 'aiChat' }, schema: { tags, body: raiseIncidentBody, response: { 201: z.object({ data: incidentSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(agentWorkCommands.raiseIncident, request.body, commandCaller(request)) }),
  );
  api.post(
    '/agent/incidents/:id/resolve',
    { config: SITE_ADMIN, schema: { tags, params: idParams, body: resolveIncidentBody.nullish(), response: { 200: z.object({ data: incidentSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(agentWorkCommands.resolveIncident, { ...(request.body ?? {}), id: request.params.id }, commandCaller(request)),
    }),
  );
}
