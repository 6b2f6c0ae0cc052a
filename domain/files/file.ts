// A file record (one stored object of a site) and a transform preset: create, change, delete. The
// object's bytes are the storage's; the record says what they are and how editors file them.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type FileChanges, type FileEvent, fileEventSchemas, type PresetChanges } from './events.ts';

export type { FileChanges, FileEvent, PresetChanges };

type Registered = Extract<FileEvent, { type: 'file.registered' }>['data'];

export type FileCommand = { type: 'registerFile'; file: Registered } | { type: 'updateFile'; changes: FileChanges } | { type: 'deleteFile' };

export interface FileState {
  status: 'absent' | 'active' | 'deleted';
  fileId: string | null;
  key: string | null;
  title: string | null;
  tags: string[];
  folder: string | null;
}

const sameTags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((tag, index) => tag === b[index]);

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  eventTypes: eventTypesOf(fileEventSchemas),
  initialState: () => ({ status: 'absent', fileId: null, key: null, title: null, tags: [], folder: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'file.registered': {
        const { fileId, key, title, tags, folder } = event.data;
        return { status: 'active', fileId, key, title, tags, folder };
      }
      case 'file.updated': {
        const { changes } = event.data;
        return {
          ...state,
          title: changes.title !== undefined ? changes.title : state.title,
          tags: changes.tags ?? state.tags,
          folder: changes.folder !== undefined ? changes.folder : state.folder,
        };
      }
      case 'file.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'registerFile':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'File already exists');
        return [{ type: 'file.registered', data: command.file }];
      case 'updateFile': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'File not found');
        const changes: FileChanges = {};
        const requested = command.changes;
        if (requested.title !== undefined && requested.title !== state.title) changes.title = requested.title;
        if (requested.tags !== undefined && !sameTags(requested.tags, state.tags)) changes.tags = requested.tags;
        if (requested.folder !== undefined && requested.folder !== state.folder) changes.folder = requested.folder;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'file.updated', data: { fileId: state.fileId!, changes } }];
      }
      case 'deleteFile':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'File not found');
        return [{ type: 'file.deleted', data: { fileId: state.fileId!, key: state.key! } }];
    }
  },
};

export type PresetCommand =
  | { type: 'createPreset'; presetId: string; key: string; name: string; dsl: Record<string, unknown> }
  | { type: 'updatePreset'; changes: PresetChanges }
  | { type: 'deletePreset' };

export interface PresetState {
  status: 'absent' | 'active' | 'deleted';
  presetId: string | null;
  key: string | null;
  name: string | null;
  dsl: Record<string, unknown>;
}

export const presetDecider: Decider<PresetState, PresetCommand, FileEvent> = {
  eventTypes: eventTypesOf(fileEventSchemas),
  initialState: () => ({ status: 'absent', presetId: null, key: null, name: null, dsl: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'transform_preset.created': {
        const { presetId, key, name, dsl } = event.data;
        return { status: 'active', presetId, key, name, dsl };
      }
      case 'transform_preset.updated': {
        const { changes } = event.data;
        return { ...state, key: changes.key ?? state.key, name: changes.name ?? state.name, dsl: changes.dsl ?? state.dsl };
      }
      case 'transform_preset.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createPreset':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Preset already exists');
        return [{ type: 'transform_preset.created', data: { presetId: command.presetId, key: command.key, name: command.name, dsl: command.dsl } }];
      case 'updatePreset': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Transform preset not found');
        const changes: PresetChanges = {};
        if (command.changes.key !== undefined && command.changes.key !== state.key) changes.key = command.changes.key;
        if (command.changes.name !== undefined && command.changes.name !== state.name) changes.name = command.changes.name;
        if (command.changes.dsl !== undefined && JSON.stringify(command.changes.dsl) !== JSON.stringify(state.dsl)) changes.dsl = command.changes.dsl;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'transform_preset.updated', data: { presetId: state.presetId!, changes } }];
      }
      case 'deletePreset':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Transform preset not found');
        return [{ type: 'transform_preset.deleted', data: { presetId: state.presetId!, key: state.key! } }];
    }
  },
};
