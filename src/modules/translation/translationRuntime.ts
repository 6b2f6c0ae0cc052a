// The translation area's runtime, started by its manifest (src/modules/index.ts): the provider client
// the environment configures (SVC_TRANSLATE_*), or none. Nothing runs in the background.
import type { Config } from '../../config/config.ts';
import type { AppContext } from '../../runtime/context.ts';
import { deeplProvider } from './providers/deepl.ts';
import { openAiProvider } from './providers/openai.ts';
import type { TranslationProvider } from './providers/port.ts';

export interface TranslationRuntime {
  /** null: no provider configured; the pipeline answers `stage: 'none'` after memory and glossary. */
  provider: TranslationProvider | null;
}

type ProviderConfig = Pick<Config, 'SVC_TRANSLATE_PROVIDER' | 'SVC_TRANSLATE_URL' | 'SVC_TRANSLATE_API_KEY' | 'SVC_TRANSLATE_MODEL' | 'SVC_TRANSLATE_TIMEOUT_MS'>;

export function providerOf(config: ProviderConfig): TranslationProvider | null {
  const apiKey = config.SVC_TRANSLATE_API_KEY;
  if (!config.SVC_TRANSLATE_PROVIDER || !apiKey) return null;
  const common = { apiKey, timeoutMs: config.SVC_TRANSLATE_TIMEOUT_MS, ...(config.SVC_TRANSLATE_URL ? { url: config.SVC_TRANSLATE_URL } : {}) };
  return config.SVC_TRANSLATE_PROVIDER === 'deepl' ? deeplProvider(common) : openAiProvider({ ...common, model: config.SVC_TRANSLATE_MODEL });
}

export function startTranslationRuntime(context: AppContext): TranslationRuntime {
  const provider = providerOf(context.config);
  // The provider and its base URL, never the key.
  if (provider) context.logger.info({ provider: provider.name, url: context.config.SVC_TRANSLATE_URL ?? 'default' }, 'translation provider configured');
  return { provider };
}
