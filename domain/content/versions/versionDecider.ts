// A named version (draft) of an item: created from main's content, edited without touching main,
// promoted back to main, deleted. The key is the stream's identity; a deleted key may be reused.
import { AppError } from '../../shared/appError.ts';
import type { Decider } from '../../shared/events.ts';
import { eventTypesOf } from '../../shared/eventSchema.ts';
import { type ItemData, type VersionEvent, versionEventSchemas } from './events.ts';

export type VersionCommand =
  | { type: 'createVersion'; collection: string; itemId: string; key: string; name: string; data: ItemData; baseVersion: number }
  | { type: 'updateVersion'; name?: string; changes?: ItemData }
  | { type: 'deleteVersion' }
  | { type: 'recordPromotion'; mainVersion: number; mainData: ItemData; revisionId: string | null; mainDiverged: boolean };

export interface VersionState {
  status: 'absent' | 'active' | 'deleted';
  collection: string;
  itemId: string;
  key: string;
  name: string;
  data: ItemData;
  /** Main's content and version the version was made from (or last promoted into). */
  baseData: ItemData;
  baseVersion: number;
}

/**
 * The fields a version changed relative to its base: what a promotion applies to main. For a
 * translatable field (a `{ lang: value }` map) only the languages it changed, so that main's edits
 * of the other languages survive the merge as its edits of other fields do.
 */
export function versionChanges(state: Pick<VersionState, 'data' | 'baseData'>, translatable: ReadonlySet<string> = new Set()): ItemData {
  const changes: ItemData = {};
  for (const [field, value] of Object.entries(state.data)) {
    const base = state.baseData[field];
    if (sameValue(base, value)) continue;
    changes[field] = translatable.has(field) && isLanguageMap(base) && isLanguageMap(value) ? changedLanguages(base, value) : value;
  }
  return changes;
}

function isLanguageMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function changedLanguages(base: Record<string, unknown>, value: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [language, text] of Object.entries(value)) if (!sameValue(base[language], text)) changed[language] = text;
  return changed;
}

function missing(key: string): AppError {
  return new AppError('NOT_FOUND', `No version "${key}" on this item`);
}

export const versionDecider: Decider<VersionState, VersionCommand, VersionEvent> = {
  eventTypes: eventTypesOf(versionEventSchemas),
  initialState: () => ({ status: 'absent', collection: '', itemId: '', key: '', name: '', data: {}, baseData: {}, baseVersion: 0 }),

  evolve(state, event) {
    switch (event.type) {
      case 'version.created': {
        const d = event.data;
        return { status: 'active', collection: d.collection, itemId: d.itemId, key: d.key, name: d.name, data: d.data, baseData: d.data, baseVersion: d.baseVersion };
      }
      case 'version.updated':
        return { ...state, name: event.data.name ?? state.name, data: event.data.data ?? state.data };
      case 'version.deleted':
        return { ...state, status: 'deleted' };
      case 'version.promoted':
        return { ...state, data: event.data.data, baseData: event.data.data, baseVersion: event.data.mainVersion };
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'createVersion':
        if (state.status === 'active') {
          throw new AppError('CONFLICT', `A version with key "${command.key}" already exists on this item`, { path: ['body', 'key'] });
        }
        return [
          {
            type: 'version.created',
            data: {
              collection: command.collection,
              itemId: command.itemId,
              key: command.key,
              name: command.name,
              data: command.data,
              baseVersion: command.baseVersion,
            },
          },
        ];
      case 'updateVersion': {
        if (state.status !== 'active') throw missing(state.key);
        const nameChanged = command.name !== undefined && command.name !== state.name;
        const changes = command.changes ?? {};
        const dataChanged = Object.entries(changes).some(([field, value]) => !sameValue(state.data[field], value));
        if (!nameChanged && !dataChanged) return [];
        return [
          {
            type: 'version.updated',
            data: {
              collection: state.collection,
              itemId: state.itemId,
              key: state.key,
              ...(nameChanged ? { name: command.name } : {}),
              ...(dataChanged ? { data: { ...state.data, ...changes }, changes } : {}),
            },
          },
        ];
      }
      case 'deleteVersion':
        if (state.status !== 'active') throw missing(state.key);
        return [{ type: 'version.deleted', data: { collection: state.collection, itemId: state.itemId, key: state.key } }];
      case 'recordPromotion':
        if (state.status !== 'active') throw missing(state.key);
        return [
          {
            type: 'version.promoted',
            data: {
              collection: state.collection,
              itemId: state.itemId,
              key: state.key,
              mainVersion: command.mainVersion,
              data: command.mainData,
              revisionId: command.revisionId,
              mainDiverged: command.mainDiverged,
            },
          },
        ];
    }
  },
};

/** Structural equality of JSON values (key order ignored). */
export function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (left === undefined || right === undefined || left === null || right === null) return false;
  if (typeof left !== 'object' || typeof right !== 'object') return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((value, index) => sameValue(value, right[index]));
  }
  const leftEntries = Object.entries(left as Record<string, unknown>);
  const rightObject = right as Record<string, unknown>;
  if (leftEntries.length !== Object.keys(rightObject).length) return false;
  return leftEntries.every(([key, value]) => key in rightObject && sameValue(value, rightObject[key]));
}
