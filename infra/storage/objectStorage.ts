// The object storage port: where file bytes live (a folder under the data dir by default, or an S3
// bucket), and `forSite`, the per-site view of it that keeps each site's objects under its own prefix.
import { SITE_ID_PATTERN } from '../../domain/sites/site.ts';

export interface StoredObject {
  key: string;
  size: number;
  contentType: string;
  /** Opaque version tag of the bytes (S3's ETag without quotes; an MD5 of the bytes for local storage). */
  etag?: string;
}

export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  /** Writes a local file's bytes (known length) under key; overwrites. */
  putFile(key: string, path: string, contentType: string): Promise<StoredObject>;
  /** A readable stream of the object, or null when absent. Consume or destroy the stream: it holds an open file or socket. */
  get(key: string): Promise<{ stream: NodeJS.ReadableStream; size: number; contentType: string } | null>;
  head(key: string): Promise<StoredObject | null>;
  /** Removes the object; removing an absent one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `folder` + '/' (a file's derivatives); none is not an error. */
  deleteFolder(folder: string): Promise<void>;
  /**
   * A presigned PUT for direct uploads (S3); null for local storage (the service then signs its own one-time URL).
   * S3 cannot enforce `maxBytes` on a presigned PUT (only a presigned POST policy can), so the service
   * checks the object's size with `head` when the file record is registered.
   */
  presignPut(
    key: string,
    options: { contentType: string; expiresInSeconds: number; maxBytes?: number },
  ): Promise<{ url: string; method: 'PUT'; headers: Record<string, string> } | null>;
}

/** The per-site view: the same port, every key relative to `sites/<siteId>/`. */
export interface SiteObjectStorage extends ObjectStorage {
  readonly siteId: string;
}

/** Longest key a caller of `forSite` may use. */
export const MAX_OBJECT_KEY_LENGTH = 512;
/** Longest segment (between slashes): a segment is a file or folder name in local storage, and filesystems stop at 255 bytes. */
export const MAX_OBJECT_KEY_SEGMENT_LENGTH = 200;
/** Longest key an adapter accepts (S3's own limit is 1024 bytes; keys here are ASCII). */
export const MAX_STORED_KEY_LENGTH = 1024;

const KEY_CHARACTERS = /^[A-Za-z0-9._/-]+$/;

/**
 * A key that is refused before any storage is touched. Callers map it to 400 on writes and to 404 on
 * reads (a key no object can have).
 */
export class InvalidObjectKeyError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`invalid object key: ${reason}`);
    this.name = 'InvalidObjectKeyError';
  }
}

/**
 * Why `key` cannot be an object key, or null when it can: 1 to `maxLength` characters of
 * `[A-Za-z0-9._/-]`, segments split by single slashes (so no leading, trailing or double slash) of at
 * most 200 characters each, and no `.` or `..` segment (a key names one object, never a path that
 * climbs or aliases another).
 */
export function objectKeyProblem(key: string, maxLength: number = MAX_OBJECT_KEY_LENGTH): string | null {
  if (key.length === 0) return 'empty';
  if (key.length > maxLength) return `longer than ${maxLength} characters`;
  if (!KEY_CHARACTERS.test(key)) return 'only letters, digits, ".", "_", "-" and "/" are allowed';
  for (const segment of key.split('/')) {
    if (segment === '') return 'a leading, trailing or double "/"';
    if (segment === '.' || segment === '..') return 'a "." or ".." segment';
    if (segment.length > MAX_OBJECT_KEY_SEGMENT_LENGTH) return `a segment longer than ${MAX_OBJECT_KEY_SEGMENT_LENGTH} characters`;
  }
  return null;
}

/** Throws InvalidObjectKeyError unless `key` is a valid object key. */
export function assertObjectKey(key: string, maxLength: number = MAX_OBJECT_KEY_LENGTH): void {
  const problem = objectKeyProblem(key, maxLength);
  if (problem !== null) throw new InvalidObjectKeyError(key, problem);
}

function sitePrefix(siteId: string): string {
  // A site id comes from the service, never from a request body: a bad one is a programming error.
  if (!SITE_ID_PATTERN.test(siteId)) throw new Error(`invalid site id for object storage: ${JSON.stringify(siteId)}`);
  return `sites/${siteId}/`;
}

/** The stored key of a site's object: `sites/<siteId>/<key>`; throws InvalidObjectKeyError for a bad key. */
export function siteObjectKey(siteId: string, key: string): string {
  const prefix = sitePrefix(siteId);
  assertObjectKey(key);
  return prefix + key;
}

/**
 * The storage as one site sees it. Every key is validated and put under `sites/<siteId>/`, so no key a
 * site can name (guessed or crafted) reaches another site's objects; keys in answers are the site's own.
 * Invalid keys throw InvalidObjectKeyError from every method.
 */
export function forSite(storage: ObjectStorage, siteId: string): SiteObjectStorage {
  const prefix = sitePrefix(siteId);
  const stored = (key: string): string => siteObjectKey(siteId, key);
  const relative = (object: StoredObject, key: string): StoredObject => {
    if (!object.key.startsWith(prefix)) throw new Error(`object storage answered for another key: ${object.key}`);
    return { ...object, key };
  };
  return {
    kind: storage.kind,
    siteId,
    async putFile(key, path, contentType) {
      return relative(await storage.putFile(stored(key), path, contentType), key);
    },
    async get(key) {
      return storage.get(stored(key));
    },
    async head(key) {
      const object = await storage.head(stored(key));
      return object && relative(object, key);
    },
    async delete(key) {
      await storage.delete(stored(key));
    },
    async deleteFolder(folder) {
      await storage.deleteFolder(stored(folder));
    },
    async presignPut(key, options) {
      return storage.presignPut(stored(key), options);
    },
  };
}
