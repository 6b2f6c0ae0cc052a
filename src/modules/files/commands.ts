// The files area's commands (the command registry, docs/files.md): file records' changes, transform
// presets, the upload policy. Registering and deleting a file record stay routes for now: they read
// and remove the object in storage, held by the area's runtime (filesRuntime.ts), which a command's
// handler, given the context only, cannot reach; so do the raw-bytes uploads (mediaRoutes.ts).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { updateFile } from './fileHandlers.ts';
import { createPreset, deletePreset, updatePreset } from './presetHandlers.ts';
import { createPresetBody, updateFileBody, updatePresetBody, uploadConfigBody } from './schemas.ts';
import { setUploadPolicy } from './uploadPolicy.ts';

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
