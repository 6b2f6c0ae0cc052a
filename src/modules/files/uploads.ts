// The ways bytes come in (docs/files.md "Uploads"), each through the upload guard before anything
// is kept: a presigned S3 PUT or, with local storage, a one-time URL the service signs itself
// (`PUT /files/upload/<key>`); raw bytes to `POST /media/:key`; a multipart form to `POST /files`
// (./formUpload.ts). A registration (`POST /files` with JSON) inspects the stored object again, so
// bytes that went straight to S3 meet the guard too. What passes is stored as it came (byte for
// byte) unless the site's policy has `stripMetadata`.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../../domain/shared/appError.ts';
import type { SiteObjectStorage } from '../../../infra/storage/objectStorage.ts';
import type { AppContext } from '../../runtime/context.ts';
import { inspectUpload, receiveToTempFile } from './uploadGuard.ts';
import { uploadPolicyOf } from './uploadPolicy.ts';

/** How long a presigned or signed upload URL is valid. */
export const UPLOAD_URL_TTL_SECONDS = 900;

export interface Inspected {
  key: string;
  filename: string;
  type: string;
  size: number;
  width: number | null;
  height: number | null;
}

const sanitize = (filename: string) =>
  filename
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 120) || 'file';

/** A fresh key for an upload: `uploads/<uuid>/<sanitized file name>`. */
export function newUploadKey(filename: string): string {
  return `uploads/${randomUUID()}/${sanitize(filename)}`;
}

const filenameOf = (key: string) => key.slice(key.lastIndexOf('/') + 1);

function signature(secret: string, parts: readonly string[]): string {
  return createHmac('sha256', secret).update(parts.join('\n')).digest('base64url');
}

/** The signed one-time URL of local storage: PUT `<base>/files/upload/<key>?expires=&signature=` with these headers. */
export function signLocalUpload(secret: string, base: string, siteId: string, key: string, contentType: string, expiresAt: number) {
  const sig = signature(secret, [siteId, key, contentType, String(expiresAt)]);
  return {
    url: `${base}/files/upload/${key}?expires=${expiresAt}&signature=${sig}`,
    method: 'PUT' as const,
    headers: { 'Content-Type': contentType, 'X-Svc-Site': siteId },
  };
}

/** 401 without a signature, 403 for a wrong or expired one. */
export function verifyLocalUpload(secret: string, siteId: string, key: string, contentType: string, query: { expires?: string; signature?: string }, now = Date.now()): void {
  if (!query.signature || !query.expires) throw new AppError('UNAUTHENTICATED', 'This upload URL is not signed');
  const expected = Buffer.from(signature(secret, [siteId, key, contentType, query.expires]));
  const given = Buffer.from(query.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new AppError('PERMISSION_DENIED', 'This upload URL is not valid for this upload');
  if (Number(query.expires) * 1_000 < now) throw new AppError('PERMISSION_DENIED', 'This upload URL has expired');
}

export async function tempDir(context: Pick<AppContext, 'config'>): Promise<string> {
  const dir = join(context.config.dataDir, 'tmp', 'uploads');
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * Receives `body` under the site's policy and inspects it; then `keep` stores what passed (from the
 * temporary file at `path`) and answers the result. With `stripMetadata: 'atRegistration'` the bytes
 * are kept as sent whatever the policy: the registration that follows strips them. Nothing is kept when it is refused, and `keep`
 * decides whether the key is free before it writes (a losing race never touches the winner's bytes).
 */
export async function receiveInspected<T>(
  context: Pick<AppContext, 'config' | 'database'>,
  siteId: string,
  body: NodeJS.ReadableStream | undefined,
  declared: { filename: string; contentType: string },
  keep: (path: string, what: Omit<Inspected, 'key'>) => Promise<T>,
  options: { stripMetadata: 'policy' | 'atRegistration' } = { stripMetadata: 'policy' },
): Promise<T> {
  const policy = await uploadPolicyOf(context, siteId);
  // A request with neither bytes nor a content type reaches the route without a stream (Fastify parses
  // nothing): it is an empty upload, refused by the guard as one, not a failure reading `undefined`.
  const file = await receiveToTempFile(body ?? Readable.from([]), { dir: await tempDir(context), maxBytes: policy.maxBytes });
  try {
    // Bytes a registration will inspect again (the signed upload URL's) are stripped there, once: a JPEG re-encoded twice loses twice.
    const what = await inspectUpload(file, declared, { policy, stripMetadata: options.stripMetadata === 'policy' && policy.stripMetadata });
    return await keep(file.path, { filename: declared.filename, type: what.mimeType, size: what.bytes, width: what.width ?? null, height: what.height ?? null });
  } finally {
    await rm(file.path, { force: true });
  }
}

/**
 * The object at `key` checked as an upload (it may have gone straight to S3): refused objects are
 * deleted; one re-encoded without its metadata (the policy's `stripMetadata`) is written back. 404 RECORD_NOT_FOUND when nothing was uploaded there.
 */
export async function inspectStored(context: Pick<AppContext, 'config' | 'database'>, storage: SiteObjectStorage, siteId: string, key: string, filename = filenameOf(key)): Promise<Inspected> {
  const object = await storage.get(key);
  if (!object) throw new AppError('RECORD_NOT_FOUND', `Nothing was uploaded at "${key}"`, { path: ['body', 'key'] });
  const dir = await tempDir(context);
  const path = join(dir, randomUUID());
  try {
    await pipeline(object.stream, createWriteStream(path));
    const policy = await uploadPolicyOf(context, siteId);
    try {
      if (object.size > policy.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The upload is over this site's ${policy.maxBytes} bytes`);
      const what = await inspectUpload({ path, bytes: object.size }, { filename, contentType: object.contentType }, { policy, stripMetadata: policy.stripMetadata });
      // A raster image is re-encoded in place when the policy strips metadata: store what was kept.
      if (what.reencoded) await storage.putFile(key, path, what.mimeType);
      return { key, filename, type: what.mimeType, size: what.bytes, width: what.width ?? null, height: what.height ?? null };
    } catch (error) {
      await storage.delete(key);
      throw error;
    }
  } finally {
    await rm(path, { force: true });
  }
}
