// A cloud-sync pipeline: pushes a site's item writes of some collections to a document database or a
// realtime database (docs/integrations.md). The decider keeps the definition's history; the target
// never changes (a new target is a new pipeline, with credentials of its kind).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import type { EventDataOf } from '../shared/eventCatalogue.ts';
import { type CloudSyncEvent, type CloudSyncTarget, cloudSyncEventSchemas, type PipelineChanges } from './events.ts';

export type { PipelineChanges };

/** What a pipeline is set to: the created event's data without its ids and start (credentials as their sealed reference). */
export type PipelineSettings = Omit<EventDataOf<'cloud_sync_pipeline.created'>, 'pipelineId' | 'target' | 'startSeq'>;

export type PipelineCommand =
  | { type: 'createPipeline'; pipelineId: string; target: CloudSyncTarget; settings: PipelineSettings; startSeq: number }
  | { type: 'updatePipeline'; changes: PipelineChanges }
  | { type: 'deletePipeline' };

export interface PipelineState {
  status: 'absent' | 'active' | 'deleted';
  pipelineId: string | null;
  target: CloudSyncTarget | null;
  settings: PipelineSettings | null;
}

const notFound = () => new AppError('NOT_FOUND', 'Cloud-sync pipeline not found');

/** The changes that change something (a collection list compared as a set). */
function effectiveChanges(settings: PipelineSettings, changes: PipelineChanges): PipelineChanges {
  const effective: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes) as [keyof PipelineSettings, unknown][]) {
    if (value === undefined) continue;
    const current = settings[key];
    const same = Array.isArray(value) && Array.isArray(current) ? value.length === current.length && value.every((entry) => current.includes(entry)) : value === current;
    if (!same) effective[key] = value;
  }
  return effective as PipelineChanges;
}

export const pipelineDecider: Decider<PipelineState, PipelineCommand, CloudSyncEvent> = {
  eventTypes: eventTypesOf(cloudSyncEventSchemas),
  initialState: () => ({ status: 'absent', pipelineId: null, target: null, settings: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'cloud_sync_pipeline.created': {
        const { pipelineId, target, startSeq: _startSeq, ...settings } = event.data;
        return { status: 'active', pipelineId, target, settings };
      }
      case 'cloud_sync_pipeline.updated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'cloud_sync_pipeline.deleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createPipeline':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Cloud-sync pipeline already exists');
        return [
          {
            type: 'cloud_sync_pipeline.created',
            data: { pipelineId: command.pipelineId, target: command.target, ...command.settings, collections: [...new Set(command.settings.collections)], startSeq: command.startSeq },
          },
        ];
      case 'updatePipeline': {
        if (state.status !== 'active') throw notFound();
        const changes = effectiveChanges(state.settings!, { ...command.changes, ...(command.changes.collections ? { collections: [...new Set(command.changes.collections)] } : {}) });
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'cloud_sync_pipeline.updated', data: { pipelineId: state.pipelineId!, changes } }];
      }
      case 'deletePipeline':
        if (state.status !== 'active') throw notFound();
        return [{ type: 'cloud_sync_pipeline.deleted', data: { pipelineId: state.pipelineId! } }];
    }
  },
};

/** Where an item's document goes: the template with its collection, then the item id. */
export function documentPath(targetPath: string, collection: string, itemId: string): string {
  return `${targetPath.replaceAll('{collection}', collection)}/${itemId}`;
}
