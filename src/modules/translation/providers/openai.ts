// An OpenAI-compatible provider through the openai client (POST /chat/completions): the glossary's
// terms that occur in the text are given in the system prompt, to be used exactly.
import type OpenAI from 'openai';
import { providerFailed, type GlossaryHint, type ProviderRequest, type TranslationProvider } from './port.ts';

export interface OpenAiOptions {
  apiKey: string;
  /** Base URL ending in the API version (`https://api.openai.com/v1`). */
  url?: string;
  model: string;
  timeoutMs: number;
}

/** The system prompt: translate, answer the translation alone, use the glossary's translations. */
export function translationPrompt(from: string, to: string, glossary: readonly GlossaryHint[]): string {
  const lines = [
    `You translate text from the language tagged "${from}" into the language tagged "${to}" (BCP 47).`,
    'Answer with the translation only: no quotes, notes or explanations. Keep the formatting, placeholders and markup of the text.',
  ];
  if (glossary.length > 0) {
    lines.push('Glossary: translate each of these terms exactly as given.');
    for (const hint of glossary) lines.push(`- ${JSON.stringify(hint.term)} → ${JSON.stringify(hint.translation)}`);
  }
  return lines.join('\n');
}

function reasonOf(openai: typeof import('openai'), error: unknown): string {
  if (error instanceof openai.APIConnectionTimeoutError) return 'timed out';
  if (error instanceof openai.APIConnectionError) return 'unreachable';
  if (error instanceof openai.APIError && error.status !== undefined) return `HTTP ${error.status}`;
  return 'an unexpected answer';
}

export function openAiProvider(options: OpenAiOptions): TranslationProvider {
  let client: OpenAI | undefined;
  return {
    name: 'openai',
    async translate({ text, from, to, glossary }: ProviderRequest): Promise<string> {
      // Imported on the first translation, not at startup: most instances configure no such provider, and the package is large.
      const openai = await import('openai');
      client ??= new openai.OpenAI({ apiKey: options.apiKey, baseURL: options.url ?? 'https://api.openai.com/v1', timeout: options.timeoutMs, maxRetries: 0 });
      let content: string | null | undefined;
      try {
        const completion = await client.chat.completions.create({
          model: options.model,
          temperature: 0,
          messages: [
            { role: 'system', content: translationPrompt(from, to, glossary) },
            { role: 'user', content: text },
          ],
        });
        content = completion.choices?.[0]?.message?.content;
      } catch (error) {
        throw providerFailed('openai', reasonOf(openai, error));
      }
      const translated = typeof content === 'string' ? content.trim() : '';
      if (!translated) throw providerFailed('openai', 'it answered no translation');
      return translated;
    },
  };
}
