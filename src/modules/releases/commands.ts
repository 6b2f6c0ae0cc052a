// The releases area's commands (the command registry, docs/architecture.md): create, update (meta,
// schedule, items added and removed), delete, publish and revert. Input errors are 422, as the
// releases routes answer (the spec's rule for releases).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createRelease, deleteRelease, updateRelease } from './handlers.ts';
import { publishRelease } from './publishRelease.ts';
import { revertRelease } from './revertRelease.ts';
import { createReleaseBody, updateReleaseBody } from './schemas.ts';

/** Publishing and reverting: site administrators, or holders of the capability, each item held to their update rules. */
const PUBLISHER = { access: 'bearer', capability: 'releases:publish' } as const;
const releaseId = z.object({ id: z.string() }).strict();

const create = defineCommand({
  name: 'releases.create',
  description: 'Create a release: its name, atomicity, schedule, maintenance window and items.',
  input: createReleaseBody,
  access: 'siteAdmin',
  dangerous: false,
  unprocessableInput: true,
  handler: (context, { siteId, input, metadata }) => createRelease(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'releases.update',
  description: "Change a release's name, atomicity, schedule or maintenance window, and add or remove its items.",
  input: updateReleaseBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: false,
  unprocessableInput: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...body } = input;
    return updateRelease(context, siteId, uuidOr404(id, 'Release'), body, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'releases.delete',
  description: 'Delete a release that is not published.',
  input: releaseId,
  access: 'siteAdmin',
  dangerous: true,
  unprocessableInput: true,
  handler: (context, { siteId, input, metadata }) => deleteRelease(context, siteId, uuidOr404(input.id, 'Release'), metadata),
});

const publish = defineCommand({
  name: 'releases.publish',
  description: "Publish a release now: each item takes its target status (or pinned revision); the answer lists each item's outcome.",
  input: releaseId,
  ...PUBLISHER,
  dangerous: true,
  skill: true,
  unprocessableInput: true,
  async handler(context, { siteId, input, metadata, access }) {
    const published = await publishRelease(context, { siteId, releaseId: uuidOr404(input.id, 'Release'), access: await access(), metadata });
    // Only the scheduler's run (dueAt) answers null.
    return published!;
  },
});

const revert = defineCommand({
  name: 'releases.revert',
  description: "Revert a published release: its items go back to the versions they had before it (`force`: also those changed since).",
  input: z.object({ id: z.string(), force: z.boolean().default(false) }).strict(),
  ...PUBLISHER,
  dangerous: true,
  unprocessableInput: true,
  async handler(context, { siteId, input, metadata, access }) {
    return revertRelease(context, { siteId, releaseId: uuidOr404(input.id, 'Release'), access: await access(), metadata, force: input.force });
  },
});

export const releaseCommands = { create, update, delete: deleteCommand, publish, revert };
