// Object storage in an S3 bucket (AWS or any S3-compatible store: MinIO, R2, s3rver in tests), chosen
// when S3_BUCKET is set. Bodies stream both ways; direct uploads get a presigned PUT.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { assertObjectKey, MAX_STORED_KEY_LENGTH, type ObjectStorage } from './objectStorage.ts';

export interface S3StorageOptions {
  bucket: string;
  /** Unset: AWS's endpoint for the region. */
  endpoint?: string | undefined;
  region: string;
  /** Both unset: the SDK's default credential chain (environment, shared files, instance or task role). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (MinIO, s3rver). */
  forcePathStyle: boolean;
}

/** The longest a presigned URL may live, by S3's rules (7 days). */
const MAX_PRESIGN_SECONDS = 7 * 86_400;

/** The SDK and a client of it. */
interface S3 {
  sdk: typeof import('@aws-sdk/client-s3');
  client: S3Client;
}

export function createS3ObjectStorage(options: S3StorageOptions): ObjectStorage {
  const bucket = options.bucket;
  // The SDK is imported on the first call, not at startup: it is large (megabytes of heap), and only files use it.
  let loading: Promise<S3> | undefined;
  const s3 = () =>
    (loading ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: options.region,
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        forcePathStyle: options.forcePathStyle,
        ...(options.accessKeyId && options.secretAccessKey
          ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
          : {}),
        // The SDK's default since 2025 adds a CRC32 to every put (as an aws-chunked trailer) and to presigned
        // URLs: stores other than AWS may keep the chunk framing as the bytes, and a presigned URL would carry
        // the checksum of an empty body. Checksums only where S3 requires them; TLS guards the transfer.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  const checked = (key: string): string => {
    assertObjectKey(key, MAX_STORED_KEY_LENGTH);
    return key;
  };

  return {
    kind: 's3',

    // One PutObject streams the file with its length (no buffering); S3 takes up to 5 GB this way.
    async putFile(key, path, contentType) {
      const { size } = await stat(path);
      const { sdk, client } = await s3();
      const answer = await client.send(
        new sdk.PutObjectCommand({ Bucket: bucket, Key: checked(key), Body: createReadStream(path), ContentLength: size, ContentType: contentType }),
      );
      return { key, size, contentType, ...etagOf(answer.ETag) };
    },

    async get(key) {
      const { sdk, client } = await s3();
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: checked(key) }));
        if (!(answer.Body instanceof Readable)) throw new Error('S3 GetObject answered without a Node stream body');
        return { stream: answer.Body, size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if (isMissingObject(sdk, error)) return null;
        throw error;
      }
    },

    async head(key) {
      const { sdk, client } = await s3();
      try {
        const answer = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: checked(key) }));
        return { key, size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? 'application/octet-stream', ...etagOf(answer.ETag) };
      } catch (error) {
        if (isMissingObject(sdk, error)) return null;
        throw error;
      }
    },

    async delete(key) {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: checked(key) }));
    },

    async deleteFolder(folder) {
      const prefix = `${checked(folder)}/`;
      const { sdk, client } = await s3();
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        const objects = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
        if (objects.length > 0) await client.send(new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    // The Content-Type is signed: the upload must send the header as given. A presigned PUT cannot
    // limit the body's size, so maxBytes is not enforced here; the service heads the object when the
    // file record is registered and refuses (and deletes) one that is too large.
    async presignPut(key, { contentType, expiresInSeconds }) {
      if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
        throw new RangeError(`expiresInSeconds must be an integer from 1 to ${MAX_PRESIGN_SECONDS}`);
      }
      const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), import('@aws-sdk/s3-request-presigner')]);
      const url = await getSignedUrl(client, new sdk.PutObjectCommand({ Bucket: bucket, Key: checked(key), ContentType: contentType }), {
        expiresIn: expiresInSeconds,
        signableHeaders: new Set(['content-type']),
      });
      return { url, method: 'PUT', headers: { 'content-type': contentType } };
    },
  };
}

function etagOf(etag: string | undefined): { etag?: string } {
  return etag ? { etag: etag.replace(/^"|"$/g, '') } : {};
}

/** GetObject says NoSuchKey; HeadObject, which has no body, only NotFound. A missing bucket stays an error on get. */
function isMissingObject(sdk: S3['sdk'], error: unknown): boolean {
  return error instanceof sdk.S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound');
}
