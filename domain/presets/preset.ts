// A view preset of one site: a collection's layout, query and options for a user, a role or everyone
// (docs/presets.md). The decider keeps the preset whole, so an update says only what changed.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type PresetContent, type PresetEvent, presetEventSchemas } from './events.ts';

export type { PresetContent, PresetEvent };

export type PresetCommand =
  | { type: 'createPreset'; presetId: string; preset: PresetContent }
  | { type: 'updatePreset'; changes: Partial<PresetContent> }
  | { type: 'deletePreset' };

export interface PresetState {
  status: 'absent' | 'active' | 'deleted';
  presetId: string | null;
  preset: PresetContent | null;
}

const PRESET_KEYS = ['collection', 'bookmark', 'userId', 'roleId', 'layout', 'query', 'options', 'icon', 'color'] as const;

/** Equal as JSON: the query and the options are plain JSON values. */
const sameValue = (left: unknown, right: unknown) => JSON.stringify(left) === JSON.stringify(right);

export const presetDecider: Decider<PresetState, PresetCommand, PresetEvent> = {
  eventTypes: eventTypesOf(presetEventSchemas),
  initialState: () => ({ status: 'absent', presetId: null, preset: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'preset.created':
      case 'preset.updated':
        return { status: 'active', presetId: event.data.presetId, preset: event.data.preset };
      case 'preset.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createPreset':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Preset already exists');
        return [{ type: 'preset.created', data: { presetId: command.presetId, preset: command.preset } }];
      case 'updatePreset': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Preset not found');
        const current = state.preset!;
        const next: PresetContent = { ...current };
        const changed: string[] = [];
        for (const key of PRESET_KEYS) {
          const value = command.changes[key];
          if (value === undefined || sameValue(value, current[key])) continue;
          (next as Record<string, unknown>)[key] = value;
          changed.push(key);
        }
        if (changed.length === 0) return [];
        return [{ type: 'preset.updated', data: { presetId: state.presetId!, preset: next, changed } }];
      }
      case 'deletePreset':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Preset not found');
        return [{ type: 'preset.deleted', data: { presetId: state.presetId! } }];
    }
  },
};
