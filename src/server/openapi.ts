// The OpenAPI document (GET /api/v1/openapi.json) and, outside production, the reference page
// (/api/v1/reference), both generated from the routes' schemas and the operation catalogue
// (src/server/openapi/: how it is built and how to add an entry, docs/api-reference.md).
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../runtime/context.ts';
import { sharedComponents } from './openapi/components.ts';
import { createOperationTransform } from './openapi/documentOperation.ts';
import { createSchemaConverter } from './openapi/documentSchemas.ts';
import { operationCatalogue } from './openapi/operations/index.ts';
import { documentTags } from './openapi/operations/tags.ts';

/** Registers the document generator; call before the routes are registered. */
export async function registerOpenApi(app: FastifyInstance, context: AppContext): Promise<void> {
  // One converter per server: the recursive definitions it hoists go into this server's document.
  const schemas = createSchemaConverter();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Svc CMS API',
        version: context.version,
        description:
          'Event-sourced, multi-tenant headless CMS. Every answer is the envelope `{ data, meta? }`, every refusal ' +
          '`{ errors: [{ code, message, path, extensions }] }` with the codes each operation lists. Items are per-site ' +
          'runtime content: the document types their structural fields only.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This service' }],
      tags: documentTags,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'A session’s access token, an identity provider’s token, an API key (`svk_…`), or the instance token on /instance routes.' },
          site: { type: 'apiKey', in: 'header', name: 'X-Svc-Site', description: 'The site (tenant) the request acts in; it may also be resolved from the host.' },
        },
      },
    },
    transform: createOperationTransform(operationCatalogue, schemas),
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      return {
        ...openapiObject,
        components: { ...openapiObject.components, schemas: { ...openapiObject.components?.schemas, ...sharedComponents, ...schemas.hoisted() } },
      } as typeof openapiObject;
    },
  });
  if (context.config.NODE_ENV !== 'production') {
    await app.register(fastifySwaggerUi, { routePrefix: '/api/v1/reference' });
  }
}

/** The document's own route; call after the routes are registered. */
export function registerOpenApiDocument(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
