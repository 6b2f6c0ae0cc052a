// The OpenAPI document (GET /api/v1/openapi.json) and, outside production, the reference page
// (/api/v1/reference), both generated from the routes' schemas.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { AppContext } from '../runtime/context.ts';

/** Registers the document generator; call before the routes are registered. */
export async function registerOpenApi(app: FastifyInstance, context: AppContext): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Svc CMS API', version: context.version, description: 'Event-sourced, multi-tenant headless CMS' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          site: { type: 'apiKey', in: 'header', name: 'X-Svc-Site' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  if (context.config.NODE_ENV !== 'production') {
    await app.register(fastifySwaggerUi, { routePrefix: '/api/v1/reference' });
  }
}

/** The document's own route; call after the routes are registered. */
export function registerOpenApiDocument(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
