// /admin/auth/issuers (site admin): trusted external identity providers. Input errors on these
// routes are 422 VALIDATION_FAILED (the spec's rule for issuers), not 400.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { issuerCommands } from './commands.ts';
import { findIssuer, listIssuers } from './queries.ts';
import { createIssuerBody, issuerSchema, updateIssuerBody } from './schemas.ts';
import { commandCaller, SITE_ADMIN, unprocessableOnInvalidBody, uuidOr404 } from '../../server/routeKit.ts';

const idParams = z.object({ id: z.string() });

export async function issuersRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/admin/auth/issuers',
    { config: SITE_ADMIN, schema: { tags: ['issuers'], response: { 200: z.object({ data: z.array(issuerSchema) }) } } },
    async (request) => ({ data: await context.database.withSite(request.siteId, (tx) => listIssuers(tx, request.siteId)) }),
  );

  api.post(
    '/admin/auth/issuers',
    {
      config: SITE_ADMIN,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['issuers'], body: createIssuerBody, response: { 201: z.object({ data: issuerSchema }) } },
    },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(issuerCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/admin/auth/issuers/:id', { config: SITE_ADMIN, schema: { tags: ['issuers'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Issuer');
    const issuer = await context.database.withSite(request.siteId, (tx) => findIssuer(tx, request.siteId, id));
    if (!issuer) throw errors.notFound('Issuer not found');
    return { data: issuer };
  });

  api.patch(
    '/admin/auth/issuers/:id',
    {
      config: SITE_ADMIN,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['issuers'], params: idParams, body: updateIssuerBody, response: { 200: z.object({ data: issuerSchema }) } },
    },
    async (request) => ({
      data: await context.commands.runValidated(issuerCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/admin/auth/issuers/:id', { config: SITE_ADMIN, schema: { tags: ['issuers'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(issuerCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
