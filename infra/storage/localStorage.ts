// Object storage in a folder (`<SVC_DATA_DIR>/objects`, the default). An object is a data file per
// version plus a metadata file naming the current version; renaming a fresh metadata file into place
// is the one step that commits a put, so a reader sees the old object or the new one, never a mix.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { assertObjectKey, InvalidObjectKeyError, MAX_STORED_KEY_LENGTH, type ObjectStorage } from './objectStorage.ts';

// Layout of key `a/b/logo.png`: folders `a/b/`, then `logo.png~meta.json` (the metadata) and
// `logo.png~<version>` (the bytes). Keys never hold '~', so an object's files never meet the folders of
// longer keys: `a` and `a/b` can both exist, as in S3.
interface ObjectMetadata {
  version: string;
  size: number;
  contentType: string;
  etag: string;
}

const COPY_BUFFER_BYTES = 1024 * 1024;

export function createLocalObjectStorage(directory: string): ObjectStorage {
  const root = resolve(directory);
  const withKeyLock = keyedLock();

  function locate(key: string) {
    assertObjectKey(key, MAX_STORED_KEY_LENGTH);
    const base = join(root, ...key.split('/'));
    if (!base.startsWith(root + sep)) throw new InvalidObjectKeyError(key, 'outside the storage folder');
    return { base, metadata: `${base}~meta.json`, data: (version: string) => `${base}~${version}` };
  }

  return {
    kind: 'local',

    async putFile(key, path, contentType) {
      const target = locate(key);
      await mkdir(dirname(target.base), { recursive: true });
      const version = randomBytes(12).toString('hex');
      const dataPath = target.data(version);
      let copied: { size: number; etag: string };
      try {
        copied = await copyWithDigest(path, dataPath);
      } catch (error) {
        await removeIfPresent(dataPath);
        throw error;
      }
      const metadata: ObjectMetadata = { version, contentType, ...copied };
      // Writers of one key commit in turn, so each removes the version it replaced and none is left behind.
      await withKeyLock(key, async () => {
        const previous = await readMetadata(target.metadata);
        await writeFileAtomically(target.metadata, JSON.stringify(metadata));
        if (previous) await removeIfPresent(target.data(previous.version));
      });
      return { key, size: copied.size, contentType, etag: copied.etag };
    },

    async get(key) {
      const target = locate(key);
      // A put or delete may remove the version between the two reads: then read the metadata again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const metadata = await readMetadata(target.metadata);
        if (!metadata) return null;
        const handle = await openIfPresent(target.data(metadata.version));
        if (!handle) continue;
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), size, contentType: metadata.contentType };
      }
      return null;
    },

    async head(key) {
      const metadata = await readMetadata(locate(key).metadata);
      return metadata && { key, size: metadata.size, contentType: metadata.contentType, etag: metadata.etag };
    },

    async deleteFolder(folder) {
      // Keys below `folder/` are files under its directory (an object's own files sit beside it, as `folder~…`).
      await rm(locate(folder).base, { recursive: true, force: true });
    },

    async delete(key) {
      const target = locate(key);
      await withKeyLock(key, async () => {
        const metadata = await readMetadata(target.metadata);
        if (!metadata) return;
        await removeIfPresent(target.metadata);
        await removeIfPresent(target.data(metadata.version));
      });
    },

    async presignPut() {
      return null;
    },
  };
}

/**
 * Copies a file through one reused buffer, so memory stays flat whatever the size (a stream would
 * allocate a buffer per chunk and leave tens of megabytes for the garbage collector), takes its MD5 on
 * the way, and syncs it to disk before the caller commits it.
 */
async function copyWithDigest(sourcePath: string, targetPath: string): Promise<{ size: number; etag: string }> {
  const hash = createHash('md5');
  let size = 0;
  const source = await open(sourcePath, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(COPY_BUFFER_BYTES, (await source.stat()).size)));
    const target = await open(targetPath, 'wx');
    try {
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        for (let written = 0; written < bytesRead; ) {
          written += (await target.write(buffer, written, bytesRead - written, size + written)).bytesWritten;
        }
        size += bytesRead;
      }
      await target.sync();
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  return { size, etag: hash.digest('hex') };
}

async function readMetadata(path: string): Promise<ObjectMetadata | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ObjectMetadata;
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

async function writeFileAtomically(path: string, contents: string): Promise<void> {
  const temporary = `${path}-${randomBytes(8).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, contents, { flag: 'wx', flush: true });
    await rename(temporary, path);
  } catch (error) {
    await removeIfPresent(temporary);
    throw error;
  }
}

async function openIfPresent(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
}

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Runs work for one key after the work queued before it for that key (in this process). */
function keyedLock(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<void>>();
  return async (key, work) => {
    const previous = tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => done);
    tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
