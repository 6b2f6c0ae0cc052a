// Events of a site's translation memory (docs/translation.md): entries (one stream per entry,
// `<siteId>/tm-entry/<id>`) and glossary terms (`<siteId>/tm-glossary-term/<id>`). Each event carries
// the normalized key it was decided with (normalizedSource, normalizedTerm), so a rebuild gives the
// same rows whatever the normalization becomes later.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const ENTRY_SOURCES = ['manual', 'provider', 'import'] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];

export const entryContentSchema = z.object({
  targetText: z.string(),
  quality: z.number().int(),
  context: z.string().nullable(),
  source: z.string().nullable(),
  entrySource: z.enum(ENTRY_SOURCES),
});
/** What an upsert or a PATCH may change of an entry (its languages and source text are its key). */
export type EntryContent = z.infer<typeof entryContentSchema>;

export const tmEntryEventSchemas = {
  'tm_entry.saved': entryContentSchema.extend({
    entryId: z.string(),
    sourceLang: z.string(),
    targetLang: z.string(),
    sourceText: z.string(),
    normalizedSource: z.string(),
  }),
  'tm_entry.updated': z.object({ entryId: z.string(), changes: entryContentSchema.partial() }),
  'tm_entry.deleted': z.object({ entryId: z.string() }),
};
export type TmEntryEvent = EventOf<typeof tmEntryEventSchemas>;

export const termContentSchema = z.object({
  term: z.string(),
  normalizedTerm: z.string(),
  translation: z.string(),
  caseSensitive: z.boolean(),
});
export type TermContent = z.infer<typeof termContentSchema>;

export const glossaryEventSchemas = {
  'tm_glossary_term.created': termContentSchema.extend({ termId: z.string(), sourceLang: z.string(), targetLang: z.string() }),
  'tm_glossary_term.updated': z.object({ termId: z.string(), changes: termContentSchema.partial() }),
  'tm_glossary_term.deleted': z.object({ termId: z.string() }),
};
export type GlossaryTermEvent = EventOf<typeof glossaryEventSchemas>;

export const translationEventSchemas = { ...tmEntryEventSchemas, ...glossaryEventSchemas };
