// The cloud-sync area's commands (the command registry, docs/architecture.md): create, update (settings
// or rotated credentials) and delete a pipeline; backfill, bound to the area's runtime (its target
// clients). Input errors are 400 VALIDATION_ERROR, the spec's code for this area. Each sends the
// site's content outside the service, or stops doing so: dangerous (an agent's call waits for a person).
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import type { CloudSyncRuntime } from './cloudSyncRuntime.ts';
import { createPipeline, deletePipeline, updatePipeline } from './handlers.ts';
import { backfillStart, findPipeline } from './queries.ts';
import { createPipelineBody, updatePipelineBody, type BackfillResult } from './schemas.ts';
import { backfill } from './sync.ts';

const create = defineCommand({
  name: 'cloudSync.create',
  description: "Create a cloud-sync pipeline: pushes the listed collections' item creates, updates and deletes to a document database or a realtime database. Its credentials are sealed and never shown again.",
  input: createPipelineBody,
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => createPipeline(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'cloudSync.update',
  description: "Change a cloud-sync pipeline's settings, or rotate its credentials (of the same target).",
  input: z.intersection(updatePipelineBody, z.object({ id: z.string() })),
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updatePipeline(context, siteId, uuidOr404(id, 'Cloud-sync pipeline'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'cloudSync.delete',
  description: 'Delete a cloud-sync pipeline with its log; its sealed credentials are destroyed.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => deletePipeline(context, siteId, uuidOr404(input.id, 'Cloud-sync pipeline'), metadata),
});

export const cloudSyncCommands = { create, update, delete: deleteCommand };

/** Backfill pushes with the runtime's target clients. */
export function cloudSyncRuntimeCommands(runtime: CloudSyncRuntime) {
  const backfillCommand = defineCommand({
    name: 'cloudSync.backfill',
    description:
      "Push every current item of a pipeline's collections to its target, in batches, at most SVC_CLOUD_SYNC_BACKFILL_LIMIT items a call: { scanned, pushed, failed, truncated }; when truncated, the next call resumes there.",
    input: z.object({ id: z.string() }),
    access: 'siteAdmin',
    dangerous: true,
    inputErrorCode: 'VALIDATION_ERROR',
    async handler(context, { siteId, input }): Promise<BackfillResult> {
      const id = uuidOr404(input.id, 'Cloud-sync pipeline');
      const found = await context.database.withSiteReads(siteId, async (tx) => {
        const pipeline = await findPipeline(tx, siteId, id);
        return pipeline ? { pipeline, start: await backfillStart(tx, siteId, id) } : null;
      });
      if (!found) throw errors.notFound('Cloud-sync pipeline not found');
      return backfill(runtime, siteId, found.pipeline, found.start, context.config.SVC_CLOUD_SYNC_BACKFILL_LIMIT, () => new Date());
    },
  });
  return { backfill: backfillCommand };
}
