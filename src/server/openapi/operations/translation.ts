// Translation memory: entries, fuzzy lookups, the glossary and the translate pipeline (docs/translation.md).
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const languages = 'Languages are BCP 47 tags (`en`, `de-DE`), compared case-insensitively and answered lowercase; the two must differ.';

export const translationOperations: OperationCatalogue = {
  'GET /tm': {
    summary: 'List translation memory entries',
    description: 'Newest first; filter with `?source=`, `?target=` (language tags) and `?entrySource=`; page with `limit` (1–200, default 25) and `offset`.',
  },
  'POST /tm': {
    summary: 'Save a translation memory entry (upsert)',
    description:
      `Keyed on the site, the languages and the normalized source text (NFC, trimmed, whitespace collapsed, lowercased): 201 with a new entry, 200 with the ` +
      `existing one updated (same id). Omitted optional fields take their defaults (quality 100, or 70 for entrySource provider). ${languages}`,
  },
  'GET /tm/{id}': { summary: 'One translation memory entry' },
  'PATCH /tm/{id}': {
    summary: 'Change a translation memory entry',
    description: 'Changes targetText, quality, context and source; any other field is 400 at its path.',
  },
  'DELETE /tm/{id}': { summary: 'Delete a translation memory entry', response: noContent('The entry is deleted.') },
  'POST /tm/lookup': {
    summary: 'The best fuzzy match of a text',
    description:
      'The entry of the language pair whose normalized source text is most similar to the normalized query, at or above `threshold` (0–100, default 75), ' +
      'or null. Similarity is the trigram similarity (pg_trgm) ×100, rounded; 100 only for an exact normalized match. Ties: higher quality, then newest.',
  },
  'POST /tm/translate': {
    summary: 'Translate a text: memory, then glossary, then provider',
    description:
      'Answers the first stage that has a translation: `memory` (a lookup at 75, with `match`), `glossary` (a term equal to the whole text, with `term`), ' +
      "`provider` (the configured DeepL- or OpenAI-compatible provider, with `provider`; `save: true` saves it to memory as entrySource 'provider'), " +
      "or `none` with `text: null` and `reason: 'no provider'`. A provider that fails or times out is 502 TRANSLATION_PROVIDER_FAILED.",
    errors: ['TRANSLATION_PROVIDER_FAILED'],
  },
  'GET /tm/glossary': { summary: 'List glossary terms', description: 'By language pair, then term; filter with `?source=` and `?target=`; page with `limit` and `offset`.' },
  'POST /tm/glossary': {
    summary: 'Add a glossary term',
    description: `A term is unique per language pair and normalized term: a second one is 409 CONFLICT at \`body.term\`. ${languages}`,
    errors: ['CONFLICT'],
  },
  'GET /tm/glossary/{id}': { summary: 'One glossary term' },
  'PATCH /tm/glossary/{id}': {
    summary: 'Change a glossary term',
    description: 'Changes term, translation and caseSensitive (languages are 400 at their path); a term another one of the pair has is 409.',
    errors: ['CONFLICT'],
  },
  'DELETE /tm/glossary/{id}': { summary: 'Delete a glossary term', response: noContent('The term is deleted.') },
};
