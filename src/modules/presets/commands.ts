// The presets area's commands (the command registry, docs/architecture.md): create, update, delete.
// Any signed-in principal may run them; the scope of the preset decides (handlers.ts, docs/presets.md).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createPreset, deletePreset, updatePreset } from './handlers.ts';
import { createPresetBody, updatePresetBody } from './schemas.ts';

const create = defineCommand({
  name: 'presets.create',
  description: 'Create a view preset or bookmark of a collection: for the caller (userId: their own id), a role or everyone (administrators).',
  input: createPresetBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => createPreset(context, siteId, principal, input, metadata),
});

const update = defineCommand({
  name: 'presets.update',
  description: "Change a view preset: its layout, query, options, name or scope (authorized against the old and the new scope).",
  input: updatePresetBody.safeExtend({ id: z.string() }),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, principal, input, metadata }) {
    const { id, ...changes } = input;
    return updatePreset(context, siteId, principal, uuidOr404(id, 'Preset'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'presets.delete',
  description: 'Delete a view preset or bookmark.',
  input: z.object({ id: z.string() }),
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => deletePreset(context, siteId, principal, uuidOr404(input.id, 'Preset'), metadata),
});

export const presetCommands = { create, update, delete: deleteCommand };
