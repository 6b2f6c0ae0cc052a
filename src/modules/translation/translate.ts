// POST /tm/translate (docs/translation.md "Translate"): memory, then the glossary, then the provider.
// 1. memory: the best entry at the default threshold (75) answers its targetText;
// 2. glossary: a term equal to the whole normalized text answers its translation (a case-sensitive
//    term only when the case matches too);
// 3. provider: the configured provider translates, given the pair's terms that occur in the text;
//    with `save: true` its translation is saved to memory (entrySource 'provider', quality 70);
// 4. no provider: `{ text: null, stage: 'none', reason: 'no provider' }`.
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { AppContext } from '../../runtime/context.ts';
import { assertLanguagePair, upsertEntry } from './entries.ts';
import { lookupEntry } from './lookup.ts';
import { normalizeSpacing, normalizeText } from './normalize.ts';
import { occurringTerms } from './providers/termMarkup.ts';
import { findTermByKey, termsInText } from './queries.ts';
import { DEFAULT_THRESHOLD, entryBody, type MatchView, type TermView, type TranslateBody, type TranslationView } from './schemas.ts';
import type { TranslationRuntime } from './translationRuntime.ts';

/** Candidate terms read for a text (substring matches), and terms given to a provider (whole-word matches). */
const MAX_CANDIDATE_TERMS = 200;
const MAX_PROVIDER_TERMS = 50;

type Found = { match: MatchView } | { term: TermView } | { candidates: TermView[] };

export async function translateText(
  context: AppContext,
  runtime: TranslationRuntime,
  siteId: string,
  input: TranslateBody,
  metadata: EventMetadata,
): Promise<TranslationView> {
  const { text, from, to } = input;
  assertLanguagePair(from, to, ['body', 'to']);
  const normalized = normalizeText(text);
  const found = await context.database.withSite<Found>(siteId, async (tx) => {
    const match = await lookupEntry(tx, siteId, { normalizedQuery: normalized, sourceLang: from, targetLang: to, threshold: DEFAULT_THRESHOLD });
    if (match) return { match };
    const term = await findTermByKey(tx, siteId, from, to, normalized);
    if (term && (!term.caseSensitive || normalizeSpacing(term.term) === normalizeSpacing(text))) return { term };
    return { candidates: runtime.provider ? await termsInText(tx, siteId, from, to, normalized, MAX_CANDIDATE_TERMS) : [] };
  });
  if ('match' in found) return { text: found.match.targetText, stage: 'memory', match: found.match };
  if ('term' in found) return { text: found.term.translation, stage: 'glossary', term: found.term };
  const { provider } = runtime;
  if (!provider) return { text: null, stage: 'none', reason: 'no provider' };

  const hints = found.candidates.map(({ term, translation, caseSensitive }) => ({ term, translation, caseSensitive }));
  const glossary = occurringTerms(text, hints).slice(0, MAX_PROVIDER_TERMS);
  const translated = await provider.translate({ text, from, to, glossary });
  const answer: TranslationView = { text: translated, stage: 'provider', provider: provider.name };
  if (!input.save) return answer;
  // What a provider answers is checked as a POST's body would be (length, storable text) before it is saved.
  const entry = entryBody.safeParse({ sourceLang: from, targetLang: to, sourceText: text, targetText: translated, entrySource: 'provider' });
  if (!entry.success) return { ...answer, reason: 'not saved: the translation is not a valid entry (too long or not storable)' };
  return { ...answer, saved: (await upsertEntry(context, siteId, entry.data, metadata)).entry };
}
