// The files area's commands (the command registry, docs/files.md): file records' changes, transform
// presets, the upload policy; and registering and deleting a file record, which read and remove the
// object in storage and so are bound to the area's runtime (`fileStorageCommands`, registered by the
// manifest when the runtime starts). The raw-bytes upload (`POST /media/:key`) is no command: its
// input is the request's byte stream (docs/architecture.md, "The command registry").
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { deleteFile, registerFile, updateFile } from './fileHandlers.ts';
import { removeObject, type FilesRuntime } from './filesRuntime.ts';
import { createPreset, deletePreset, updatePreset } from './presetHandlers.ts';
import { findFileByKey } from './queries.ts';
import { createPresetBody, registerFileBody, updateFileBody, updatePresetBody, uploadConfigBody } from './schemas.ts';
import { isDerivativeKey } from './transformParams.ts';
import { setUploadPolicy } from './uploadPolicy.ts';
import { inspectStored } from './uploads.ts';

const id = z.object({ id: z.string() });

const update = defineCommand({
  name: 'files.update',
  description: "Change a file record's title, tags or folder.",
  input: updateFileBody.safeExtend(id.shape),
  access: 'bearer',
  capability: 'media:update',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { id: fileId, ...changes } = input;
    return updateFile(context, siteId, uuidOr404(fileId, 'File'), changes, metadata);
  },
});

const createPresetCommand = defineCommand({
  name: 'files.createPreset',
  description: 'Create a transform preset: a key unique in the site, a name and its transform parameters.',
  input: createPresetBody,
  access: 'bearer',
  capability: 'media:create',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createPreset(context, siteId, input, metadata),
});

const updatePresetCommand = defineCommand({
  name: 'files.updatePreset',
  description: "Change a transform preset's key, name or transform parameters.",
  input: updatePresetBody.safeExtend(id.shape),
  access: 'bearer',
  capability: 'media:update',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { id: presetId, ...changes } = input;
    return updatePreset(context, siteId, uuidOr404(presetId, 'Transform preset'), changes, metadata);
  },
});

const deletePresetCommand = defineCommand({
  name: 'files.deletePreset',
  description: 'Delete a transform preset.',
  input: id,
  access: 'bearer',
  capability: 'media:delete',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deletePreset(context, siteId, uuidOr404(input.id, 'Transform preset'), metadata),
});

const setUploadPolicyCommand = defineCommand({
  name: 'files.setUploadPolicy',
  description: "Change the site's upload policy (largest upload, allowed types and extensions): the given fields over the policy in force.",
  input: uploadConfigBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => setUploadPolicy(context, siteId, input, metadata),
});

export const fileCommands = {
  update,
  createPreset: createPresetCommand,
  updatePreset: updatePresetCommand,
  deletePreset: deletePresetCommand,
  setUploadPolicy: setUploadPolicyCommand,
};

/** The commands that read or remove objects in the files runtime's storage: the manifest registers them when it starts. */
export function fileStorageCommands(runtime: FilesRuntime) {
  const register = defineCommand({
    name: 'files.register',
    description:
      'Register the object a presigned upload wrote (`uploads/…`, answered by POST /files/presigned-url) as a file record: its type, size and dimensions are read from the stored object.',
    input: registerFileBody,
    access: 'bearer',
    capability: 'media:create',
    dangerous: false,
    async handler(context, { siteId, input, metadata }) {
      // Registration takes what presigned uploads wrote; media and derivatives are not its keys.
      if (!input.key.startsWith('uploads/') || isDerivativeKey(input.key)) {
        throw new AppError('VALIDATION_FAILED', 'Register a key answered by POST /files/presigned-url (uploads/…)', { path: ['body', 'key'] });
      }
      // A registered key's object is never inspected again (a refusal would delete it).
      if (await context.database.withSiteReads(siteId, (tx) => findFileByKey(tx, siteId, input.key))) {
        throw new AppError('CONFLICT', `A file is already registered for "${input.key}"`, { path: ['body', 'key'] });
      }
      const inspected = await inspectStored(context, runtime.storageFor(siteId), siteId, input.key, input.filename);
      return registerFile(
        context,
        siteId,
        {
          key: input.key,
          filename: inspected.filename,
          title: input.title ?? null,
          type: inspected.type,
          size: inspected.size,
          tags: input.tags ?? [],
          folder: input.folder ?? null,
          width: inspected.width,
          height: inspected.height,
          source: 'upload',
        },
        metadata,
      );
    },
  });

  const deleteCommand = defineCommand({
    name: 'files.delete',
    description: 'Delete a file record, then its object in storage and every derivative made of it.',
    input: id,
    access: 'bearer',
    capability: 'media:delete',
    dangerous: true,
    async handler(context, { siteId, input, metadata }) {
      const key = await deleteFile(context, siteId, uuidOr404(input.id, 'File'), metadata);
      await removeObject(runtime.storageFor(siteId), key);
    },
  });

  return { register, delete: deleteCommand };
}
