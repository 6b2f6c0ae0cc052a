// File record commands: register (after the upload guard passed the object), change (title, tags,
// folder), delete (the record, then its object). One record per object key (409 CONFLICT for a key
// already registered).
import { randomUUID } from 'node:crypto';
import { fileDecider, type FileChanges, type FileEvent } from '../../../domain/files/file.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findFile, findFileByKey } from './queries.ts';
import type { FileView } from './schemas.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

const fileStream = (siteId: string, fileId: string) => streamId(siteId, 'file', fileId);

export type NewFile = Omit<Extract<FileEvent, { type: 'file.registered' }>['data'], 'fileId'>;

/**
 * Registers the object at `file.key`, under the site's lock on the key: 409 CONFLICT when a record
 * holds it. `storeObject` (raw uploads) writes the bytes once the key is won, before the record.
 */
export async function registerFile(context: AppContext, siteId: string, file: NewFile, metadata: EventMetadata, storeObject?: () => Promise<void>): Promise<FileView> {
  const fileId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'file-key', file.key);
    if (await findFileByKey(tx, siteId, file.key)) throw new AppError('CONFLICT', `A file is already registered for "${file.key}"`, { path: ['body', 'key'] });
    await storeObject?.();
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: fileStream(siteId, fileId),
      decider: fileDecider,
      command: { type: 'registerFile', file: { ...file, fileId } },
      metadata,
    });
    return (await findFile(tx, siteId, fileId))!;
  });
}

export async function updateFile(context: AppContext, siteId: string, fileId: string, changes: FileChanges, metadata: EventMetadata): Promise<FileView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, { siteId, streamId: fileStream(siteId, fileId), decider: fileDecider, lock: true, command: { type: 'updateFile', changes }, metadata });
    const file = await findFile(tx, siteId, fileId);
    if (!file) throw new AppError('NOT_FOUND', 'File not found');
    return file;
  });
}

/** Deletes the record; answers its object key, which the caller then removes from storage. */
export async function deleteFile(context: AppContext, siteId: string, fileId: string, metadata: EventMetadata): Promise<string> {
  const result = await handleCommand(context, { siteId, streamId: fileStream(siteId, fileId), decider: fileDecider, command: { type: 'deleteFile' }, metadata });
  return result.state.key!;
}
