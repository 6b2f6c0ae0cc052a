// The expression utilities (docs/flows.md "Utilities"), to try what a flow's options will do:
// POST /utils/render-template (the flows' sandboxed LiquidJS engine) and POST /utils/jsonata/test (the
// transform operation's JSONata, bounded the same way). For any signed-in principal of the site.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { evaluateJsonata, MAX_EXPRESSION_LENGTH } from '../../../infra/templates/jsonata.ts';
import { MAX_SOURCE_LENGTH, renderDataTemplate } from '../../../infra/templates/liquid.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

// Each call may take a second of CPU: counted against the caller like item writes.
const SIGNED_IN = { site: 'required', access: 'bearer', rateLimit: 'itemsWrite' } as const;
const tags = ['utils'];

const renderTemplateBody = z
  .object({
    template: z.string().max(MAX_SOURCE_LENGTH),
    data: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const jsonataTestBody = z
  .object({
    expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH),
    data: z.unknown().optional(),
  })
  .strict();

export async function templateUtilityRoutes(app: FastifyInstance, _deps: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/utils/render-template',
    { config: SIGNED_IN, schema: { tags, body: renderTemplateBody, response: { 200: z.object({ data: z.object({ result: z.string() }) }) } } },
    async (request) => ({ data: { result: await renderDataTemplate(request.body.template, request.body.data, ['body', 'template']) } }),
  );

  api.post(
    '/utils/jsonata/test',
    { config: SIGNED_IN, schema: { tags, body: jsonataTestBody, response: { 200: z.object({ data: z.object({ result: z.unknown() }) }) } } },
    async (request) => ({ data: { result: await evaluateJsonata(request.body.expression, request.body.data ?? null, ['body', 'expression']) } }),
  );
}
