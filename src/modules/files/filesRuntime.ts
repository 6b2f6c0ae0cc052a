// What the files routes share on one instance: the object storage (S3 or the local folder), the
// image transformer with its limits and single flight, and the file records asset requests read.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createObjectStorage } from '../../../infra/storage/createObjectStorage.ts';
import { forSite, type ObjectStorage, type SiteObjectStorage } from '../../../infra/storage/objectStorage.ts';
import type { AppContext } from '../../runtime/context.ts';
import { watchSiteChanges } from '../../runtime/siteChanges.ts';
import { createImageTransformer, type ImageTransformer } from './imageTransformer.ts';
import { findFile } from './queries.ts';
import { derivativeFolder } from './transformParams.ts';
import type { FileView } from './schemas.ts';

export interface FilesRuntime {
  storage: ObjectStorage;
  /** The storage as one site sees it: every key under that site's namespace. */
  storageFor(siteId: string): SiteObjectStorage;
  transformer: ImageTransformer;
  /**
   * A file record by id, or null: served asset URLs read it on every request, so it is kept per
   * instance and dropped with everything of its site on the site's next event (svc_events: this
   * instance's commits before their callers go on, other instances' through NOTIFY).
   */
  fileRecord(siteId: string, fileId: string): Promise<FileView | null>;
  /**
   * Bytes of recently served derivatives, by key (a derivative never changes under its key, and a
   * deleted file's are never reached: its record goes first): a hot one costs no storage read.
   */
  derivatives: ByteCache;
  close(): void;
}

/** Derivatives up to this size are held in memory. */
export const MAX_HELD_DERIVATIVE_BYTES = 1024 * 1024;
/** What the held derivatives may take in all, per instance. */
const HELD_DERIVATIVES_BYTES = 64 * 1024 * 1024;

export interface ByteCache {
  get(key: string): Buffer | undefined;
  set(key: string, bytes: Buffer): void;
}

/** A least-recently-used cache bounded by the bytes it holds. */
function createByteCache(maxBytes: number): ByteCache {
  const entries = new Map<string, Buffer>();
  let held = 0;
  return {
    get(key) {
      const bytes = entries.get(key);
      if (bytes) {
        entries.delete(key);
        entries.set(key, bytes);
      }
      return bytes;
    },
    set(key, bytes) {
      const previous = entries.get(key);
      if (previous) held -= previous.length;
      entries.delete(key);
      entries.set(key, bytes);
      held += bytes.length;
      for (const [oldest, old] of entries) {
        if (held <= maxBytes) break;
        entries.delete(oldest);
        held -= old.length;
      }
    },
  };
}

const MAX_RECORDS_PER_SITE = 10_000;

export function createFilesRuntime(context: Pick<AppContext, 'config' | 'database' | 'notifier'>): FilesRuntime {
  const { config } = context;
  const storage = createObjectStorage(config);
  const records = new Map<string, Map<string, FileView | null>>();
  const changes = watchSiteChanges(context, (siteId) => records.delete(siteId));
  return {
    derivatives: createByteCache(HELD_DERIVATIVES_BYTES),
    async fileRecord(siteId, fileId) {
      const site = records.get(siteId);
      if (site?.has(fileId)) return site.get(fileId)!;
      const generation = changes.generation(siteId);
      const file = await context.database.withSiteReads(siteId, (tx) => findFile(tx, siteId, fileId));
      if (changes.generation(siteId) === generation) {
        let entries = records.get(siteId);
        if (!entries) records.set(siteId, (entries = new Map()));
        if (entries.size >= MAX_RECORDS_PER_SITE) entries.delete(entries.keys().next().value!);
        entries.set(fileId, file);
      }
      return file;
    },
    close: changes.close,
    storage,
    storageFor: (siteId) => forSite(storage, siteId),
    transformer: createImageTransformer({
      maxInputPixels: config.MEDIA_TRANSFORM_MAX_INPUT_PIXELS,
      timeoutMs: config.MEDIA_TRANSFORM_TIMEOUT_MS,
      concurrency: config.MEDIA_TRANSFORM_CONCURRENCY,
    }),
  };
}

/** A deleted file's object and every derivative made of it (`<key>.derivatives/…`). */
export async function removeObject(storage: SiteObjectStorage, key: string): Promise<void> {
  await storage.delete(key);
  await storage.deleteFolder(derivativeFolder(key));
}

/**
 * The health answer's storage check: a small object written under `_health/` (outside every site's
 * `sites/<id>/` namespace) and removed again, so a full disk, a revoked bucket policy or an
 * unreachable object store is seen, not only a missing folder.
 */
export async function probeStorage(storage: ObjectStorage): Promise<string> {
  const id = randomUUID();
  const path = join(tmpdir(), `svc-health-${id}`);
  await writeFile(path, 'ok');
  try {
    await storage.putFile(`_health/${id}`, path, 'text/plain');
    await storage.delete(`_health/${id}`);
    return 'ok';
  } finally {
    await rm(path, { force: true });
  }
}
