// A DeepL-compatible provider through deepl-node (POST /v2/translate). DeepL's own glossaries are
// resources to create and keep in step; instead each call protects the glossary's terms: every
// occurrence is replaced by its translation inside `<keep>` with `tag_handling=xml` and
// `ignore_tags=keep`, which DeepL leaves untranslated, and the tags are removed from the answer.
import * as deepl from 'deepl-node';
import { providerFailed, type ProviderRequest, type TranslationProvider } from './port.ts';
import { segmentTerms } from './termMarkup.ts';

export interface DeeplOptions {
  apiKey: string;
  /** Base URL (unset: deepl-node picks api.deepl.com, or api-free.deepl.com for a `:fx` key). */
  url?: string;
  timeoutMs: number;
}

const KEEP = 'keep';
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const unescapeXml = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** DeepL's source code: the language alone (`de-de` → `de`). */
export function deeplSource(tag: string): string {
  return tag.split('-')[0]!;
}

/** DeepL's target code: English and Portuguese need a variant (default en-US, pt-PT), Chinese a script; others the language alone. */
export function deeplTarget(tag: string): string {
  const [language, ...subtags] = tag.split('-');
  switch (language) {
    case 'en':
      return subtags.includes('gb') ? 'en-GB' : 'en-US';
    case 'pt':
      return subtags.includes('br') ? 'pt-BR' : 'pt-PT';
    case 'zh':
      return subtags.some((subtag) => ['hant', 'tw', 'hk', 'mo'].includes(subtag)) ? 'zh-HANT' : 'zh-HANS';
    default:
      return language!;
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof deepl.AuthorizationError) return 'the API key was refused';
  if (error instanceof deepl.QuotaExceededError) return 'the quota is exceeded';
  if (error instanceof deepl.TooManyRequestsError) return 'too many requests';
  if (error instanceof deepl.ConnectionError) return 'unreachable or timed out';
  return 'an unexpected answer';
}

export function deeplProvider(options: DeeplOptions): TranslationProvider {
  const translator = new deepl.Translator(options.apiKey, {
    ...(options.url ? { serverUrl: options.url } : {}),
    maxRetries: 0,
    minTimeout: options.timeoutMs,
    sendPlatformInfo: false,
  });
  return {
    name: 'deepl',
    async translate({ text, from, to, glossary }: ProviderRequest): Promise<string> {
      const marked = segmentTerms(text, glossary)
        .map((segment) => (segment.kind === 'term' ? `<${KEEP}>${escapeXml(segment.hint.translation)}</${KEEP}>` : escapeXml(segment.text)))
        .join('');
      let result: deepl.TextResult;
      try {
        result = await translator.translateText(marked, deeplSource(from) as deepl.SourceLanguageCode, deeplTarget(to) as deepl.TargetLanguageCode, {
          tagHandling: 'xml',
          ignoreTags: [KEEP],
        });
      } catch (error) {
        throw providerFailed('deepl', reasonOf(error));
      }
      const translated = unescapeXml(result.text.replace(new RegExp(`</?${KEEP}>`, 'g'), '')).trim();
      if (!translated) throw providerFailed('deepl', 'it answered no translation');
      return translated;
    },
  };
}
