// A translation memory entry (stream `<siteId>/tm-entry/<id>`): saved once under its key (site,
// languages, normalized source text), then changed (an upsert of the same key, a PATCH) and deleted.
// A change records only the fields whose values differ; one that changes nothing records nothing.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type EntryContent, type TmEntryEvent, tmEntryEventSchemas } from './events.ts';

export type { EntryContent, TmEntryEvent };

export interface EntryKey {
  sourceLang: string;
  targetLang: string;
  sourceText: string;
  normalizedSource: string;
}

export type TmEntryCommand =
  | { type: 'saveEntry'; entryId: string; key: EntryKey; content: EntryContent }
  | { type: 'changeEntry'; changes: Partial<EntryContent> }
  | { type: 'deleteEntry' };

export interface TmEntryState {
  status: 'absent' | 'active' | 'deleted';
  entryId: string | null;
  content: EntryContent | null;
}

const CONTENT_KEYS = ['targetText', 'quality', 'context', 'source', 'entrySource'] as const;

/** The changes whose values differ from `current`. */
export function differingChanges(current: EntryContent, changes: Partial<EntryContent>): Partial<EntryContent> {
  const differing: Partial<EntryContent> = {};
  for (const key of CONTENT_KEYS) {
    const value = changes[key];
    if (value !== undefined && value !== current[key]) Object.assign(differing, { [key]: value });
  }
  return differing;
}

export const tmEntryDecider: Decider<TmEntryState, TmEntryCommand, TmEntryEvent> = {
  eventTypes: eventTypesOf(tmEntryEventSchemas),
  initialState: () => ({ status: 'absent', entryId: null, content: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'tm_entry.saved': {
        const { entryId, targetText, quality, context, source, entrySource } = event.data;
        return { status: 'active', entryId, content: { targetText, quality, context, source, entrySource } };
      }
      case 'tm_entry.updated':
        return { ...state, content: { ...state.content!, ...event.data.changes } };
      case 'tm_entry.deleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'saveEntry':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'The entry already exists');
        return [{ type: 'tm_entry.saved', data: { entryId: command.entryId, ...command.key, ...command.content } }];
      case 'changeEntry': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Translation memory entry not found');
        const changes = differingChanges(state.content!, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'tm_entry.updated', data: { entryId: state.entryId!, changes } }];
      }
      case 'deleteEntry':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Translation memory entry not found');
        return [{ type: 'tm_entry.deleted', data: { entryId: state.entryId! } }];
    }
  },
};
