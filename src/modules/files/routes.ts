// /files, /uploads/config and /transform-presets (docs/files.md): file records (listed with the
// query language), presigned uploads, multipart uploads (./formUpload.ts: @fastify/multipart is
// registered in this plugin's scope only), the upload policy, transform presets. Media, assets and
// the raw upload surfaces are in ./mediaRoutes.ts.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { parseFilterParam } from '../../query/index.ts';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { fileCommands } from './commands.ts';
import { uploadForm } from './formUpload.ts';
import { findFile, listFiles, listPresets } from './queries.ts';
import {
  canonicalContentType,
  createPresetBody,
  fileSchema,
  type FileView,
  listFilesQuery,
  presetSchema,
  presignBody,
  registerFileBody,
  updateFileBody,
  updatePresetBody,
  uploadConfigBody,
} from './schemas.ts';
import { probeStorage, type FilesRuntime } from './filesRuntime.ts';
import { newUploadKey, signLocalUpload, UPLOAD_URL_TTL_SECONDS } from './uploads.ts';
import { uploadPolicyOf } from './uploadPolicy.ts';
import { commandCaller, pageMeta, uuidOr404 } from '../../server/routeKit.ts';

const member = (capability?: string) => ({ site: 'required' as const, access: 'bearer' as const, ...(capability ? { capability } : {}) });
const idParams = z.object({ id: z.string() });

export async function filesRoutes(app: FastifyInstance, { context, healthChecks }: ServerDeps, runtime: FilesRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  // The health answer's `storage`: a small object written to the files' storage and removed again.
  healthChecks.storage = { run: () => probeStorage(runtime.storage) };
  // Multipart bodies reach only this scope's routes, as a stream: POST /files reads its one form.
  await app.register(multipart);
  // A refused form is not read to its end: the connection closes after the answer rather than wait for the rest.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400 && request.isMultipart()) reply.header('connection', 'close');
    return payload;
  });

  api.post('/files/presigned-url', { config: member('media:create'), schema: { tags: ['files'], body: presignBody } }, async (request) => {
    const { filename } = request.body;
    // Signed as the upload route reads it: lowercased, without parameters (`contentType` is `type`'s alias).
    const contentType = canonicalContentType(request.body.type ?? request.body.contentType);
    const policy = await uploadPolicyOf(context, request.siteId);
    if (request.body.size !== undefined && request.body.size > policy.maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The upload is over this site's ${policy.maxBytes} bytes`, { path: ['body', 'size'] });
    }
    const key = newUploadKey(filename);
    const expiresAt = Math.floor(Date.now() / 1_000) + UPLOAD_URL_TTL_SECONDS;
    const storage = runtime.storageFor(request.siteId);
    const presigned = await storage.presignPut(key, { contentType, expiresInSeconds: UPLOAD_URL_TTL_SECONDS, maxBytes: policy.maxBytes });
    const base = `${request.protocol}://${request.host}/api/v1`;
    const target = presigned ?? signLocalUpload(context.config.SVC_SECRET, base, request.siteId, key, contentType, expiresAt);
    return { data: { ...target, key, expiresAt: new Date(expiresAt * 1_000).toISOString() } };
  });

  // JSON registers an uploaded object (the command); a multipart form uploads a file and registers it
  // (its input is a byte stream, so no command). The JSON schema's refusal waits until the body is known to be JSON.
  api.post(
    '/files',
    {
      config: { ...member('media:create'), rateLimit: 'fileUpload' },
      attachValidation: true,
      schema: {
        tags: ['files'],
        body: registerFileBody,
        response: { 201: z.object({ data: fileSchema }) },
      },
    },
    async (request, reply) => {
      if (request.isMultipart()) return reply.status(201).send({ data: await uploadForm(context, runtime.storageFor(request.siteId), request) });
      if (request.validationError) throw request.validationError;
      return reply.status(201).send({ data: await context.commands.run<FileView>('files.register', request.body, commandCaller(request)) });
    },
  );

  api.get('/files', { config: member('media:read'), schema: { tags: ['files'] } }, async (request) => {
    const paging = listFilesQuery.safeParse(request.query);
    if (!paging.success) {
      const issue = paging.error.issues[0]!;
      throw new AppError('VALIDATION_FAILED', issue.message, { path: ['query', ...issue.path.map(String)] });
    }
    const { limit, page } = paging.data;
    const filter = parseFilterParam(request.query as Record<string, unknown>);
    const dynamic = dynamicValuesOf(request.principal);
    const result = await context.database.withSiteReads(request.siteId, (tx) => listFiles(tx, request.siteId, { filter, limit, page, dynamic }));
    return { data: result.files, meta: pageMeta(result.total, paging.data) };
  });

  api.get('/files/:id', { config: member('media:read'), schema: { tags: ['files'], params: idParams } }, async (request) => {
    const file = await context.database.withSiteReads(request.siteId, (tx) => findFile(tx, request.siteId, uuidOr404(request.params.id, 'File')));
    if (!file) throw errors.notFound('File not found');
    return { data: file };
  });

  api.patch('/files/:id', { config: member('media:update'), schema: { tags: ['files'], params: idParams, body: updateFileBody } }, async (request) => ({
    data: await context.commands.runValidated(fileCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.delete('/files/:id', { config: member('media:delete'), schema: { tags: ['files'], params: idParams } }, async (request, reply) => {
    await context.commands.run('files.delete', { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.get('/uploads/config', { config: member(), schema: { tags: ['files'] } }, async (request) => ({ data: await uploadPolicyOf(context, request.siteId) }));

  api.put('/uploads/config', { config: { site: 'required', access: 'siteAdmin' }, schema: { tags: ['files'], body: uploadConfigBody } }, async (request) => ({
    data: await context.commands.runValidated(fileCommands.setUploadPolicy, request.body, commandCaller(request)),
  }));

  api.get('/transform-presets', { config: member('media:read'), schema: { tags: ['files'] } }, async (request) => ({
    data: await context.database.withSiteReads(request.siteId, (tx) => listPresets(tx, request.siteId)),
  }));

  api.post('/transform-presets', { config: member('media:create'), schema: { tags: ['files'], body: createPresetBody, response: { 201: z.object({ data: presetSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(fileCommands.createPreset, request.body, commandCaller(request)) }),
  );

  api.patch('/transform-presets/:id', { config: member('media:update'), schema: { tags: ['files'], params: idParams, body: updatePresetBody } }, async (request) => ({
    data: await context.commands.runValidated(fileCommands.updatePreset, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.delete('/transform-presets/:id', { config: member('media:delete'), schema: { tags: ['files'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(fileCommands.deletePreset, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
