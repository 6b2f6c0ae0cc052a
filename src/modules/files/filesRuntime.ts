// What the files routes share on one instance: the object storage (S3 or the local folder) and the
// image transformer with its limits and single flight.
import { createObjectStorage } from '../../../infra/storage/createObjectStorage.ts';
import { forSite, type ObjectStorage, type SiteObjectStorage } from '../../../infra/storage/objectStorage.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createImageTransformer, type ImageTransformer } from './imageTransformer.ts';

export interface FilesRuntime {
  storage: ObjectStorage;
  /** The storage as one site sees it: every key under that site's namespace. */
  storageFor(siteId: string): SiteObjectStorage;
  transformer: ImageTransformer;
}

export function createFilesRuntime(context: Pick<AppContext, 'config'>): FilesRuntime {
  const { config } = context;
  const storage = createObjectStorage(config);
  return {
    storage,
    storageFor: (siteId) => forSite(storage, siteId),
    transformer: createImageTransformer({
      maxInputPixels: config.MEDIA_TRANSFORM_MAX_INPUT_PIXELS,
      timeoutMs: config.MEDIA_TRANSFORM_TIMEOUT_MS,
      concurrency: config.MEDIA_TRANSFORM_CONCURRENCY,
    }),
  };
}
