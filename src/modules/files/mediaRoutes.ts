// The raw-bytes surfaces and the serving of files (docs/files.md): `PUT /files/upload/<key>` (the
// signed one-time URL of local storage), `POST /media/:key` (raw bytes, media:create), `GET
// /media/:key` (the original as an attachment with nosniff, or 302 to a transform), `DELETE
// /media/:key`, and `GET /assets/:id` (a file or its transform, derivatives made once and kept
// beside the original). Bodies are streams here: every content type passes through unparsed, counted
// by the upload guard. What is served carries the headers of ./assetHeaders.ts: only verified images
// inline, everything else an attachment under a sandbox; `public` caching only for what anonymous
// visitors may read.
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { accessFor } from '../../access/access.ts';
import type { Principal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { registerFile } from './fileHandlers.ts';
import { MAX_HELD_DERIVATIVE_BYTES, type FilesRuntime } from './filesRuntime.ts';
import { findFileByKey, findPresetByKey } from './queries.ts';
import { canonicalContentType, FILE_KEY, MEDIA_KEY, type FileView } from './schemas.ts';
import { derivativeKey, hasTransform, isDerivativeKey, parseTransform, resolveOutputFormat, TRANSFORM_CONTENT_TYPES, type TransformParams } from './transformParams.ts';
import { receiveInspected, verifyLocalUpload } from './uploads.ts';
import { derivativeHeaders, originalHeaders } from './assetHeaders.ts';
import { commandCaller, uuidOr404 } from '../../server/routeKit.ts';

const declaredType = (request: FastifyRequest) => canonicalContentType(request.headers['content-type']);
const mediaObjectKey = (key: string) => `media/${key}`;
const ANONYMOUS: Principal = { kind: 'anonymous' };

export async function mediaRoutes(app: FastifyInstance, { context }: ServerDeps, runtime: FilesRuntime): Promise<void> {
  // Raw bodies: every content type arrives as the request stream, counted by the guard (not Fastify's body limit).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // A refused upload is not read to its end: the connection closes after the answer rather than wait for the rest.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400 && (request.method === 'PUT' || request.method === 'POST')) reply.header('connection', 'close');
    return payload;
  });

  const reader = { site: 'required' as const, access: 'public' as const, capability: 'media:read' };

  app.put('/files/upload/*', { config: { site: 'required', access: 'public', rateLimit: 'fileUpload' }, schema: { tags: ['files'], hide: true } }, async (request, reply) => {
    const key = (request.params as { '*': string })['*'];
    if (!FILE_KEY.test(key) || isDerivativeKey(key)) throw errors.notFound('No upload URL for this key');
    const contentType = declaredType(request);
    verifyLocalUpload(context.config.SVC_SECRET, request.siteId, key, contentType, request.query as { expires?: string; signature?: string });
    const storage = runtime.storageFor(request.siteId);
    const used = () => new AppError('CONFLICT', 'This upload URL was used already');
    if (await storage.head(key)) throw used();
    const filename = key.slice(key.lastIndexOf('/') + 1);
    const stored = await receiveInspected(
      context,
      request.siteId,
      request.body as NodeJS.ReadableStream | undefined,
      { filename, contentType },
      async (path, what) => {
        // Two requests with one URL: the second to finish finds the first's object.
        if (await storage.head(key)) throw used();
        await storage.putFile(key, path, what.type);
        return what;
      },
      { stripMetadata: 'atRegistration' },
    );
    return reply.status(201).send({ data: { key, type: stored.type, size: stored.size } });
  });

  app.post('/media/:key', { config: { site: 'required', access: 'bearer', capability: 'media:create', rateLimit: 'fileUpload' }, schema: { tags: ['files'] } }, async (request, reply) => {
    const { key } = request.params as { key: string };
    if (!MEDIA_KEY.test(key)) throw new AppError('VALIDATION_FAILED', 'A media key is 1 to 200 letters, digits, ".", "_" or "-"', { path: ['params', 'key'] });
    const objectKey = mediaObjectKey(key);
    if (await context.database.withSiteReads(request.siteId, (tx) => findFileByKey(tx, request.siteId, objectKey))) {
      throw new AppError('CONFLICT', `Media "${key}" exists; delete it first`, { path: ['params', 'key'] });
    }
    const storage = runtime.storageFor(request.siteId);
    const file = await receiveInspected(context, request.siteId, request.body as NodeJS.ReadableStream | undefined, { filename: key, contentType: declaredType(request) }, (path, what) =>
      // The bytes are written once the key is won (under the registration's lock): a losing request never touches the winner's.
      registerFile(
        context,
        request.siteId,
        { key: objectKey, filename: key, title: null, type: what.type, size: what.size, tags: [], folder: null, width: what.width, height: what.height, source: 'media' },
        request.metadata,
        () => storage.putFile(objectKey, path, what.type).then(() => undefined),
      ),
    );
    return reply.status(201).send({ data: file });
  });

  async function mediaFile(request: FastifyRequest): Promise<FileView> {
    const { key } = request.params as { key: string };
    const file = MEDIA_KEY.test(key) ? await context.database.withSiteReads(request.siteId, (tx) => findFileByKey(tx, request.siteId, mediaObjectKey(key))) : null;
    if (!file) throw errors.notFound(`No media "${key}"`);
    return file;
  }

  async function transformOf(request: FastifyRequest): Promise<TransformParams | null> {
    const query = request.query as Record<string, unknown>;
    if (!hasTransform(query)) return null;
    return parseTransform(query, async (preset) =>
      (await context.database.withSiteReads(request.siteId, (tx) => findPresetByKey(tx, request.siteId, preset)))?.dsl ?? null,
    );
  }

  app.get('/media/:key', { config: reader, schema: { tags: ['files'] } }, async (request, reply) => {
    const file = await mediaFile(request);
    const params = await transformOf(request);
    if (params) {
      // The derivative's own address: the normalized parameters on the file's asset URL.
      const search = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, typeof value === 'object' ? `${value.x},${value.y}` : String(value)]));
      return reply.redirect(`/api/v1/assets/${file.id}?${search.toString()}`, 302);
    }
    return sendOriginal(request, reply, file, 'attachment');
  });

  app.delete('/media/:key', { config: { site: 'required', access: 'bearer', capability: 'media:delete' }, schema: { tags: ['files'] } }, async (request, reply) => {
    const file = await mediaFile(request);
    await context.commands.run('files.delete', { id: file.id }, commandCaller(request));
    return reply.status(204).send();
  });

  app.get('/assets/:id', { config: reader, schema: { tags: ['files'] } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const file = await runtime.fileRecord(request.siteId, uuidOr404(id, 'File'));
    if (!file) throw errors.notFound('File not found');
    const params = await transformOf(request);
    if (!params) return sendOriginal(request, reply, file, 'inline');
    return sendDerivative(request, reply, file, params);
  });

  /**
   * Whether the site's public role may read media (the `media:read` capability these routes check): only
   * then may a shared cache keep what they answer. Asked of the grants cache, like every request's access.
   */
  async function publiclyReadable(request: FastifyRequest): Promise<boolean> {
    const access = request.principal.kind === 'anonymous' ? await request.access() : await accessFor(context, request.siteId, ANONYMOUS);
    return access.hasCapability('media:read');
  }

  async function sendOriginal(request: FastifyRequest, reply: FastifyReply, file: FileView, disposition: 'attachment' | 'inline') {
    const object = await runtime.storageFor(request.siteId).get(file.key);
    if (!object) throw errors.notFound('The file has no bytes in storage');
    reply.headers({ ...originalHeaders(file, disposition, await publiclyReadable(request)), 'content-length': String(object.size) });
    return reply.send(object.stream);
  }

  /** The derivative: stored once beside the original (single flight in this instance), served as immutable. */
  async function sendDerivative(request: FastifyRequest, reply: FastifyReply, file: FileView, params: TransformParams) {
    const storage = runtime.storageFor(request.siteId);
    const resolved = resolveOutputFormat(params, file.type);
    const key = derivativeKey(file.key, resolved, file.id);
    const etag = `"${key.slice(key.lastIndexOf('/') + 1)}"`;
    const headers = derivativeHeaders(TRANSFORM_CONTENT_TYPES[resolved.format], etag, await publiclyReadable(request));
    // A derivative never changes under its key: a revalidation needs no storage read.
    if (request.headers['if-none-match'] === etag) return reply.status(304).headers(headers).send();
    const held = runtime.derivatives.get(key);
    if (held) return reply.headers({ ...headers, 'content-length': String(held.length) }).send(held);
    const stored = await storage.get(key);
    if (stored) {
      if (stored.size > MAX_HELD_DERIVATIVE_BYTES) return reply.headers({ ...headers, 'content-length': String(stored.size) }).send(stored.stream);
      const bytes = await buffer(stored.stream as AsyncIterable<Uint8Array>);
      runtime.derivatives.set(key, bytes);
      return reply.headers({ ...headers, 'content-length': String(bytes.length) }).send(bytes);
    }
    await runtime.transformer.derive(key, async () => {
      if (await storage.head(key)) return;
      const original = await storage.get(file.key);
      if (!original) throw errors.notFound('The file has no bytes in storage');
      const dir = join(context.config.dataDir, 'tmp', 'derivatives');
      await mkdir(dir, { recursive: true });
      const source = join(dir, randomUUID());
      const target = `${source}.out`;
      try {
        await pipeline(original.stream, createWriteStream(source));
        const rendered = await runtime.transformer.render(source, resolved);
        await writeFile(target, rendered.buffer);
        await storage.putFile(key, target, rendered.contentType);
        if (rendered.buffer.length <= MAX_HELD_DERIVATIVE_BYTES) runtime.derivatives.set(key, rendered.buffer);
      } finally {
        await rm(source, { force: true });
        await rm(target, { force: true });
      }
    });
    const rendered = runtime.derivatives.get(key);
    if (rendered) return reply.headers({ ...headers, 'content-length': String(rendered.length) }).send(rendered);
    const derivative = await storage.get(key);
    if (!derivative) throw errors.notFound('The derivative could not be stored');
    return reply.headers({ ...headers, 'content-length': String(derivative.size) }).send(derivative.stream);
  }
}
