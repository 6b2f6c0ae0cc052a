// Events of the cloud-sync context (docs/integrations.md): a pipeline's definition. Its credentials
// are never in an event: `credentials` is a reference to the sealed value store (`svc:sealed:<id>`).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const CLOUD_SYNC_TARGETS = ['firestore', 'realtime_database'] as const;
export type CloudSyncTarget = (typeof CLOUD_SYNC_TARGETS)[number];

const pipelineSettingsShape = {
  name: z.string(),
  projectId: z.string(),
  collections: z.array(z.string()),
  targetPath: z.string(),
  syncOnCreate: z.boolean(),
  syncOnUpdate: z.boolean(),
  syncOnDelete: z.boolean(),
  /** The sealed credentials' reference. */
  credentials: z.string(),
};
const pipelineChangesSchema = z.object(pipelineSettingsShape).partial();
export type PipelineChanges = z.infer<typeof pipelineChangesSchema>;

export const cloudSyncEventSchemas = {
  'cloud_sync_pipeline.created': z.object({
    pipelineId: z.string(),
    target: z.enum(CLOUD_SYNC_TARGETS),
    ...pipelineSettingsShape,
    /** The site's change-feed sequence at creation: the pipeline pushes the entries after it. */
    startSeq: z.number(),
  }),
  'cloud_sync_pipeline.updated': z.object({ pipelineId: z.string(), changes: pipelineChangesSchema }),
  'cloud_sync_pipeline.deleted': z.object({ pipelineId: z.string() }),
};
export type CloudSyncEvent = EventOf<typeof cloudSyncEventSchemas>;
