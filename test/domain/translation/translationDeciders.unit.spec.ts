// The translation memory deciders, given events / when command / then events, with no database.
import { describe, it } from 'vitest';
import { glossaryTermDecider } from '../../../domain/translation/glossaryTerm.ts';
import { tmEntryDecider } from '../../../domain/translation/tmEntry.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const entryId = '0190f5a2-7c1e-7000-8000-000000000001';
const termId = '0190f5a2-7c1e-7000-8000-000000000002';
const key = { sourceLang: 'en', targetLang: 'de', sourceText: 'Hello  World', normalizedSource: 'hello world' };
const content = { targetText: 'Hallo Welt', quality: 100, context: null, source: null, entrySource: 'manual' as const };
const saved = { type: 'tm_entry.saved', data: { entryId, ...key, ...content } };
const term = { term: 'Widget', normalizedTerm: 'widget', translation: 'Bauteil', caseSensitive: false };
const created = { type: 'tm_glossary_term.created', data: { termId, sourceLang: 'en', targetLang: 'de', ...term } };

describe('the translation memory entry decider', () => {
  const entry = deciderSpecification(tmEntryDecider);

  it('saves a new entry with its key and content', () => {
    entry.given([]).when({ type: 'saveEntry', entryId, key, content }).then([saved as never]);
  });

  it('refuses to save an entry twice', () => {
    entry.given([saved]).when({ type: 'saveEntry', entryId, key, content }).thenThrows('CONFLICT', 409);
  });

  it('records only the fields a change makes differ, and nothing when none does', () => {
    entry
      .given([saved])
      .when({ type: 'changeEntry', changes: { ...content, targetText: 'Hallo, Welt', source: 'articles/1' } })
      .then([{ type: 'tm_entry.updated', data: { entryId, changes: { targetText: 'Hallo, Welt', source: 'articles/1' } } }]);
    entry.given([saved]).when({ type: 'changeEntry', changes: content }).thenNothing();
    entry
      .given([saved, { type: 'tm_entry.updated', data: { entryId, changes: { quality: 50 } } }])
      .when({ type: 'changeEntry', changes: { quality: 50, context: 'button' } })
      .then([{ type: 'tm_entry.updated', data: { entryId, changes: { context: 'button' } } }]);
  });

  it('deletes an entry once; a deleted or absent entry is not found', () => {
    entry.given([saved]).when({ type: 'deleteEntry' }).then([{ type: 'tm_entry.deleted', data: { entryId } }]);
    entry.given([saved, { type: 'tm_entry.deleted', data: { entryId } }]).when({ type: 'deleteEntry' }).thenThrows('NOT_FOUND', 404);
    entry.given([]).when({ type: 'changeEntry', changes: { quality: 1 } }).thenThrows('NOT_FOUND', 404);
  });
});

describe('the glossary term decider', () => {
  const glossary = deciderSpecification(glossaryTermDecider);

  it('creates a term, refuses it twice, and records only what a change makes differ', () => {
    glossary.given([]).when({ type: 'createTerm', termId, sourceLang: 'en', targetLang: 'de', content: term }).then([created as never]);
    glossary.given([created]).when({ type: 'createTerm', termId, sourceLang: 'en', targetLang: 'de', content: term }).thenThrows('CONFLICT', 409);
    glossary
      .given([created])
      .when({ type: 'changeTerm', changes: { translation: 'Bauteil', caseSensitive: true } })
      .then([{ type: 'tm_glossary_term.updated', data: { termId, changes: { caseSensitive: true } } }]);
    glossary.given([created]).when({ type: 'changeTerm', changes: { term: 'Widget', normalizedTerm: 'widget' } }).thenNothing();
  });

  it('deletes a term once', () => {
    glossary.given([created]).when({ type: 'deleteTerm' }).then([{ type: 'tm_glossary_term.deleted', data: { termId } }]);
    glossary.given([created, { type: 'tm_glossary_term.deleted', data: { termId } }]).when({ type: 'changeTerm', changes: {} }).thenThrows('NOT_FOUND', 404);
  });
});
