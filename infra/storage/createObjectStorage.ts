// Picks the object storage: an S3 bucket when S3_BUCKET is set, otherwise the folder
// `<SVC_DATA_DIR>/objects` (the embedded default, like the embedded PostgreSQL).
import { join } from 'node:path';
import { createLocalObjectStorage } from './localStorage.ts';
import type { ObjectStorage } from './objectStorage.ts';
import { createS3ObjectStorage } from './s3Storage.ts';

/** The settings it reads; the service's Config has them all. */
export interface ObjectStorageSettings {
  dataDir: string;
  S3_BUCKET?: string | undefined;
  S3_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_ACCESS_KEY_ID?: string | undefined;
  S3_SECRET_ACCESS_KEY?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
}

export function createObjectStorage(settings: ObjectStorageSettings): ObjectStorage {
  if (!settings.S3_BUCKET) return createLocalObjectStorage(join(settings.dataDir, 'objects'));
  return createS3ObjectStorage({
    bucket: settings.S3_BUCKET,
    endpoint: settings.S3_ENDPOINT,
    region: settings.S3_REGION,
    accessKeyId: settings.S3_ACCESS_KEY_ID,
    secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
    forcePathStyle: settings.S3_FORCE_PATH_STYLE,
  });
}
