// A glossary term of a site (stream `<siteId>/tm-glossary-term/<id>`): a fixed translation of a term
// for one language pair, unique per (site, languages, normalized term). A change records only the
// fields whose values differ.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type GlossaryTermEvent, glossaryEventSchemas, type TermContent } from './events.ts';

export type { GlossaryTermEvent, TermContent };

export type GlossaryTermCommand =
  | { type: 'createTerm'; termId: string; sourceLang: string; targetLang: string; content: TermContent }
  | { type: 'changeTerm'; changes: Partial<TermContent> }
  | { type: 'deleteTerm' };

export interface GlossaryTermState {
  status: 'absent' | 'active' | 'deleted';
  termId: string | null;
  content: TermContent | null;
}

const CONTENT_KEYS = ['term', 'normalizedTerm', 'translation', 'caseSensitive'] as const;

export const glossaryTermDecider: Decider<GlossaryTermState, GlossaryTermCommand, GlossaryTermEvent> = {
  eventTypes: eventTypesOf(glossaryEventSchemas),
  initialState: () => ({ status: 'absent', termId: null, content: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'tm_glossary_term.created': {
        const { termId, term, normalizedTerm, translation, caseSensitive } = event.data;
        return { status: 'active', termId, content: { term, normalizedTerm, translation, caseSensitive } };
      }
      case 'tm_glossary_term.updated':
        return { ...state, content: { ...state.content!, ...event.data.changes } };
      case 'tm_glossary_term.deleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createTerm':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'The glossary term already exists');
        return [
          { type: 'tm_glossary_term.created', data: { termId: command.termId, sourceLang: command.sourceLang, targetLang: command.targetLang, ...command.content } },
        ];
      case 'changeTerm': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Glossary term not found');
        const changes: Partial<TermContent> = {};
        for (const key of CONTENT_KEYS) {
          const value = command.changes[key];
          if (value !== undefined && value !== state.content![key]) Object.assign(changes, { [key]: value });
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'tm_glossary_term.updated', data: { termId: state.termId!, changes } }];
      }
      case 'deleteTerm':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Glossary term not found');
        return [{ type: 'tm_glossary_term.deleted', data: { termId: state.termId! } }];
    }
  },
};
