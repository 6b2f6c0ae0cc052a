// The shapes the translation memory routes take and answer (docs/translation.md), shared with the
// area's commands.
import { z } from 'zod';
import { ENTRY_SOURCES } from '../../../domain/translation/events.ts';
import { unstorableTextReason } from '../../../domain/shared/storableText.ts';

export const MAX_TEXT_LENGTH = 10_000;
export const MAX_TERM_LENGTH = 500;
export const MAX_TERM_TRANSLATION_LENGTH = 2_000;
export const MAX_SOURCE_NOTE_LENGTH = 500;
export const MAX_CONTEXT_LENGTH = 2_000;
/** The spec's translation threshold (Limits): a lookup's default, and the memory stage's. */
export const DEFAULT_THRESHOLD = 75;
/** The quality of an entry a provider translated, unless a POST says otherwise. */
export const PROVIDER_QUALITY = 70;
/** The quality of a manual or imported entry, unless a POST says otherwise. */
export const MANUAL_QUALITY = 100;

/**
 * A BCP 47 language tag's shape (a 2–3 letter language, then subtags of 1–8 letters or digits:
 * `en`, `de-DE`, `zh-Hant-TW`, `es-419`), at most 35 characters, stored lowercase.
 */
export const languageTagSchema = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag such as en, de-DE or zh-Hant-TW')
  .toLowerCase();

const storable = (text: string) => unstorableTextReason(text) === null;
/** A text of `max` characters at most, not blank, storable by PostgreSQL. */
const textSchema = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => text.trim().length > 0, 'must not be blank')
    .refine(storable, 'must be well-formed Unicode without NUL');
const noteSchema = (max: number) => z.string().max(max).refine(storable, 'must be well-formed Unicode without NUL').nullable();

export const sourceTextSchema = textSchema(MAX_TEXT_LENGTH);
const qualitySchema = z.number().int().min(0).max(100);
/** A key a PATCH does not change: 400 at its own path. */
const unchangeable = (what: string) => z.never({ error: `${what} cannot be changed` }).optional();

export const entryBody = z
  .object({
    sourceLang: languageTagSchema,
    targetLang: languageTagSchema,
    sourceText: sourceTextSchema,
    targetText: textSchema(MAX_TEXT_LENGTH),
    quality: qualitySchema.optional(),
    context: noteSchema(MAX_CONTEXT_LENGTH).optional(),
    source: noteSchema(MAX_SOURCE_NOTE_LENGTH).optional(),
    entrySource: z.enum(ENTRY_SOURCES).optional(),
  })
  .strict();
export type EntryBody = z.infer<typeof entryBody>;

export const entryPatchBody = z
  .object({
    targetText: textSchema(MAX_TEXT_LENGTH).optional(),
    quality: qualitySchema.optional(),
    context: noteSchema(MAX_CONTEXT_LENGTH).optional(),
    source: noteSchema(MAX_SOURCE_NOTE_LENGTH).optional(),
    sourceLang: unchangeable('sourceLang'),
    targetLang: unchangeable('targetLang'),
    sourceText: unchangeable('sourceText (the key: POST the new source text instead)'),
    entrySource: unchangeable('entrySource'),
    id: unchangeable('id'),
    createdAt: unchangeable('createdAt'),
    updatedAt: unchangeable('updatedAt'),
  })
  .strict();
export type EntryPatch = Pick<z.infer<typeof entryPatchBody>, 'targetText' | 'quality' | 'context' | 'source'>;

const offsetSchema = z.coerce.number().int().min(0).max(1_000_000).default(0);
const limitSchema = z.coerce.number().int().min(1).max(200).default(25);

export const entryListQuery = z.object({
  source: languageTagSchema.optional(),
  target: languageTagSchema.optional(),
  entrySource: z.enum(ENTRY_SOURCES).optional(),
  limit: limitSchema,
  offset: offsetSchema,
});
export type EntryListQuery = z.infer<typeof entryListQuery>;

export const lookupBody = z
  .object({
    query: sourceTextSchema,
    sourceLang: languageTagSchema,
    targetLang: languageTagSchema,
    threshold: z.number().int().min(0).max(100).optional(),
  })
  .strict();
export type LookupBody = z.infer<typeof lookupBody>;

export const translateBody = z
  .object({ text: sourceTextSchema, from: languageTagSchema, to: languageTagSchema, save: z.boolean().optional() })
  .strict();
export type TranslateBody = z.infer<typeof translateBody>;

const termFields = {
  term: textSchema(MAX_TERM_LENGTH),
  translation: textSchema(MAX_TERM_TRANSLATION_LENGTH),
  caseSensitive: z.boolean(),
};
export const glossaryBody = z
  .object({ sourceLang: languageTagSchema, targetLang: languageTagSchema, ...termFields })
  .partial({ caseSensitive: true })
  .strict();
export type GlossaryBody = z.infer<typeof glossaryBody>;
export const glossaryPatchBody = z
  .object({
    ...termFields,
    sourceLang: unchangeable('sourceLang'),
    targetLang: unchangeable('targetLang'),
    id: unchangeable('id'),
    createdAt: unchangeable('createdAt'),
    updatedAt: unchangeable('updatedAt'),
  })
  .partial()
  .strict();
export type GlossaryPatch = Partial<Pick<z.infer<typeof glossaryPatchBody>, 'term' | 'translation' | 'caseSensitive'>>;

export const glossaryListQuery = z.object({ source: languageTagSchema.optional(), target: languageTagSchema.optional(), limit: limitSchema, offset: offsetSchema });
export type GlossaryListQuery = z.infer<typeof glossaryListQuery>;

export const listMetaSchema = z.object({ total: z.number(), limit: z.number(), offset: z.number() });

export const entrySchema = z.object({
  id: z.string(),
  sourceLang: z.string(),
  targetLang: z.string(),
  sourceText: z.string(),
  targetText: z.string(),
  quality: z.number(),
  context: z.string().nullable(),
  source: z.string().nullable(),
  entrySource: z.enum(ENTRY_SOURCES),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EntryView = z.infer<typeof entrySchema>;

export const matchSchema = entrySchema.extend({ similarity: z.number() });
export type MatchView = z.infer<typeof matchSchema>;

export const termSchema = z.object({
  id: z.string(),
  sourceLang: z.string(),
  targetLang: z.string(),
  term: z.string(),
  translation: z.string(),
  caseSensitive: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TermView = z.infer<typeof termSchema>;

export const PROVIDER_NAMES = ['deepl', 'openai'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const translationSchema = z.object({
  text: z.string().nullable(),
  stage: z.enum(['memory', 'glossary', 'provider', 'none']),
  match: matchSchema.optional(),
  term: termSchema.optional(),
  provider: z.enum(PROVIDER_NAMES).optional(),
  /** The entry a provider's translation was saved as (`save: true`). */
  saved: entrySchema.optional(),
  reason: z.string().optional(),
});
export type TranslationView = z.infer<typeof translationSchema>;
