// The translation provider port (docs/translation.md "Providers"): one call translates one text from
// one language into another, given the glossary terms that occur in it. DeepL-compatible and
// OpenAI-compatible APIs sit behind it (deepl.ts, openai.ts), chosen by SVC_TRANSLATE_PROVIDER.
import { AppError } from '../../../../domain/shared/appError.ts';
import type { ProviderName } from '../schemas.ts';

export interface GlossaryHint {
  term: string;
  translation: string;
  caseSensitive: boolean;
}

export interface ProviderRequest {
  text: string;
  /** Lowercase BCP 47 tags (`en`, `de-de`). */
  from: string;
  to: string;
  /** The pair's glossary terms that occur in the text, longest first. */
  glossary: GlossaryHint[];
}

export interface TranslationProvider {
  readonly name: ProviderName;
  /** The translation, or a TRANSLATION_PROVIDER_FAILED AppError. */
  translate(request: ProviderRequest): Promise<string>;
}

/**
 * The answer to a failed call: which provider, and a reason of our own words (a status, "timed out"),
 * never the provider's message (it may echo what was sent, the key's header included).
 */
export function providerFailed(provider: ProviderName, reason: string): AppError {
  // No cause: a client's error holds its request, the key's header included, and a cause may be logged.
  return new AppError('TRANSLATION_PROVIDER_FAILED', `The translation provider (${provider}) failed: ${reason}`, { extensions: { provider, reason } });
}
