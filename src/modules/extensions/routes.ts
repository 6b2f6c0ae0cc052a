// /extensions (docs/extensions.md): a site's signed extension bundles. Site administrators list,
// upload (multipart: @fastify/multipart is registered in this plugin's scope only), enable, disable,
// grant capabilities and run; any signed-in caller of the site reads the Studio's UI manifest.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN } from '../../server/routeKit.ts';
import { extensionCommands } from './commands.ts';
import { listExtensions, readUiManifest } from './queries.ts';
import { extensionSchema, grantBody, runBody, runResultSchema, uiManifestSchema, type ExtensionView, type RunResult } from './schemas.ts';
import { readUploadForm } from './uploadForm.ts';

const idParams = z.object({ id: z.string() });
const tags = ['extensions'];
const one = z.object({ data: extensionSchema });
/** Any signed-in caller of the site: the Studio reads what to show. */
const SITE_MEMBER = { site: 'required', access: 'bearer' } as const;

/** Runs per administrator and rate-limit window: the instance's sandbox slots are shared by every site. */
const EXTENSION_RUN_RATE_LIMIT = { name: 'extensionRun', limit: 120, per: 'user' } as const;

export async function extensionsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  await app.register(multipart);
  // A refused form is not read to its end: the connection closes after the answer rather than wait for the rest.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400 && request.isMultipart()) reply.header('connection', 'close');
    return payload;
  });

  api.get('/extensions', { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(extensionSchema), meta: pageMetaSchema }) } } }, async (request) => {
    const result = await context.database.withSiteReads(request.siteId, (tx) => listExtensions(tx, request.siteId, request.query));
    return { data: result.extensions, meta: pageMeta(result.total, request.query) };
  });

  // The form is read here (its input is a byte stream); the bundle's text then goes through the command.
  api.post('/extensions/upload', { config: { ...SITE_ADMIN, rateLimit: 'fileUpload' }, schema: { tags, response: { 200: one, 201: one } } }, async (request, reply) => {
    const form = await readUploadForm(request);
    const { extension, upgraded } = await context.commands.run<{ extension: ExtensionView; upgraded: boolean }>('extensions.upload', form, commandCaller(request));
    return reply.status(upgraded ? 200 : 201).send({ data: extension });
  });

  api.get('/extensions/ui/manifest', { config: SITE_MEMBER, schema: { tags, response: { 200: z.object({ data: uiManifestSchema }) } } }, async (request) => ({
    data: await context.database.withSiteReads(request.siteId, (tx) => readUiManifest(tx, request.siteId)),
  }));

  api.post('/extensions/:id/enable', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: one } } }, async (request) => ({
    data: await context.commands.runValidated(extensionCommands.enable, { id: request.params.id }, commandCaller(request)),
  }));

  api.post('/extensions/:id/disable', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: one } } }, async (request) => ({
    data: await context.commands.runValidated(extensionCommands.disable, { id: request.params.id }, commandCaller(request)),
  }));

  api.post('/extensions/:id/capabilities', { config: SITE_ADMIN, schema: { tags, params: idParams, body: grantBody, response: { 200: one } } }, async (request) => ({
    data: await context.commands.runValidated(extensionCommands.grant, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.post('/extensions/:id/run', { config: { ...SITE_ADMIN, rateLimit: EXTENSION_RUN_RATE_LIMIT }, schema: { tags, params: idParams, body: runBody, response: { 200: z.object({ data: runResultSchema }) } } }, async (request) => ({
    data: await context.commands.run<RunResult>('extensions.run', { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
}
