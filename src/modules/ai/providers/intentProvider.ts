// The copilot's provider port (docs/ai-copilot.md): what turns a message into a skill call. An
// OpenAI-compatible chat-completions API with tool calling when SVC_AI_BASE_URL is set, else the
// built-in intent parser. The chat and goals' decomposition both ask it.
import type { AppContext } from '../../../runtime/context.ts';
import type { IntentProvider } from '../skillTypes.ts';
import { builtinParser } from './builtinParser.ts';
import { openAiIntentProvider } from './openaiProvider.ts';

export function intentProviderFor(config: AppContext['config']): IntentProvider {
  if (!config.SVC_AI_BASE_URL) return builtinParser;
  return openAiIntentProvider({
    baseUrl: config.SVC_AI_BASE_URL,
    apiKey: config.SVC_AI_API_KEY ?? null,
    model: config.SVC_AI_MODEL,
    timeoutMs: config.SVC_AI_TIMEOUT_MS,
    stream: config.SVC_AI_STREAM,
  });
}
