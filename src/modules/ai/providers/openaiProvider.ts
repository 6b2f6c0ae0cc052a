// The copilot's OpenAI-compatible provider (docs/ai-copilot.md): POST <SVC_AI_BASE_URL>/chat/completions
// through the `openai` client, the skills the caller may use offered as tools (tool_choice auto). A
// tool call is a skill call; plain content is a reply; anything else, and any failure or timeout, is
// 502 AI_PROVIDER_FAILED in words of our own (a client's error may echo the request, its key included).
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase, ChatCompletionTool } from 'openai/resources/chat/completions';
import { AppError } from '../../../../domain/shared/appError.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../../../domain/shared/jsonDepth.ts';
import type { IntentProvider, IntentResolution, SkillDescriptor } from '../skillTypes.ts';

export interface OpenAiProviderOptions {
  /** Base URL ending in the API version (`http://localhost:11434/v1`). */
  baseUrl: string;
  /** Sent as a bearer token; null sends no Authorization header (local servers need none). */
  apiKey: string | null;
  model: string;
  /** One resolution's time limit, the answer streamed in included. */
  timeoutMs: number;
  stream: boolean;
}

/** Retries of a failed request by the client (connection errors, 408/409/429/5xx), within the time limit. */
const MAX_RETRIES = 1;
/** The longest arguments a tool call may have (characters): a skill's input is far smaller. */
const MAX_ARGUMENTS = 256 * 1024;
/** An OpenAI tool name: letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const SYSTEM_PROMPT = [
  'You are the copilot of a headless CMS. You act only through the tools you are given, each a skill the user may use.',
  'When the request matches a tool, call exactly one tool with arguments that follow its schema; collection names are the plural names the site uses (articles).',
  'When no tool fits, answer briefly in plain text and say what you can do.',
].join(' ');

/** The failure the chat answers: the provider's host is the operator's, the reason ours. */
export function aiProviderFailed(reason: string): AppError {
  // No cause: a client's error holds its request, the key's header included, and a cause may be logged.
  return new AppError('AI_PROVIDER_FAILED', `The AI provider failed: ${reason}`, { extensions: { provider: 'openai', reason } });
}

function reasonOf(openai: typeof import('openai'), error: unknown, timedOut: boolean): string {
  if (timedOut || error instanceof openai.APIConnectionTimeoutError) return 'timed out';
  if (error instanceof openai.APIUserAbortError) return 'the request was cancelled';
  if (error instanceof openai.APIConnectionError) return 'unreachable';
  if (error instanceof openai.APIError && error.status !== undefined) return `HTTP ${error.status}`;
  return 'an unexpected answer';
}

/**
 * Tool names for skill names, both ways: a skill's name with each character a tool name may not hold
 * as `_` (`items.read` → `items_read`), and a suffix where two would meet. Built per request from the
 * skills offered, so a tool name maps back to exactly one skill, and a name not offered to none.
 */
export function toolNames(skills: readonly SkillDescriptor[]): { toTool: Map<string, string>; toSkill: Map<string, string> } {
  const toTool = new Map<string, string>();
  const toSkill = new Map<string, string>();
  for (const skill of skills) {
    const base = skill.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 60) || 'skill';
    let name = base;
    for (let suffix = 2; toSkill.has(name); suffix += 1) name = `${base}_${suffix}`;
    toTool.set(skill.name, name);
    toSkill.set(name, skill.name);
  }
  return { toTool, toSkill };
}

function toolsOf(skills: readonly SkillDescriptor[], toTool: Map<string, string>): ChatCompletionTool[] {
  return skills.map((skill) => {
    const { $schema: _schema, ...parameters } = skill.inputSchema;
    const suffix = skill.dangerous ? ' Dangerous: it waits for a person’s approval.' : '';
    return { type: 'function', function: { name: toTool.get(skill.name)!, description: `${skill.description}${suffix}`.slice(0, 1024), parameters } };
  });
}

interface ToolCallParts {
  name: string;
  arguments: string;
}

/** What the model answered, assembled: its first tool call (the chat runs one skill per message), and its text. */
interface Answer {
  toolCall: ToolCallParts | null;
  content: string;
}

/** The resolution of an answer: its tool call as a skill call (the tool offered, the arguments a JSON object), else its text. */
export function resolutionOf(answer: Answer, toSkill: ReadonlyMap<string, string>): IntentResolution {
  if (answer.toolCall) {
    const skill = TOOL_NAME.test(answer.toolCall.name) ? toSkill.get(answer.toolCall.name) : undefined;
    if (skill === undefined) throw aiProviderFailed('it called a tool that was not offered');
    const text = answer.toolCall.arguments.trim() === '' ? '{}' : answer.toolCall.arguments;
    // What a model answers is as hostile as a body: bounded, nested at most as a body may be, and no NUL (the log's JSON refuses it).
    if (text.length > MAX_ARGUMENTS || jsonNestsDeeperThan(text, MAX_JSON_DEPTH) || text.includes('\\u0000')) {
      throw aiProviderFailed('the arguments of its tool call are too large, too deep or hold a NUL');
    }
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      throw aiProviderFailed('the arguments of its tool call are not JSON');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw aiProviderFailed('the arguments of its tool call are not a JSON object');
    const reply = answer.content.trim();
    return { kind: 'call', call: { skill, input: input as Record<string, unknown> }, ...(reply ? { reply } : {}) };
  }
  const text = answer.content.trim();
  if (!text) throw aiProviderFailed('it answered neither a tool call nor text');
  return { kind: 'reply', text };
}

/** A streamed answer put together: text deltas joined, tool-call deltas joined per index (name and arguments arrive in pieces). */
export async function assembleStream(chunks: AsyncIterable<ChatCompletionChunk>): Promise<Answer> {
  let content = '';
  const calls = new Map<number, ToolCallParts>();
  for await (const chunk of chunks) {
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    if (typeof delta.content === 'string') content += delta.content;
    if (content.length > MAX_ARGUMENTS) throw aiProviderFailed('its streamed answer is too large');
    for (const part of delta.tool_calls ?? []) {
      const call = calls.get(part.index) ?? { name: '', arguments: '' };
      call.name += part.function?.name ?? '';
      call.arguments += part.function?.arguments ?? '';
      calls.set(part.index, call);
      if (call.arguments.length > MAX_ARGUMENTS || call.name.length > MAX_ARGUMENTS) throw aiProviderFailed('its streamed answer is too large');
    }
  }
  const first = [...calls.keys()].sort((a, b) => a - b)[0];
  return { toolCall: first === undefined ? null : calls.get(first)!, content };
}

export function openAiIntentProvider(options: OpenAiProviderOptions): IntentProvider {
  let client: OpenAI | undefined;
  return {
    name: 'openai',
    async resolve({ message, skills, signal }) {
      // Imported on the first resolution, not at startup: most instances configure no provider, and the
      // package is large. Before the deadline starts: loading it is not the provider's time.
      const openai = await import('openai');
      client ??= new openai.OpenAI({
        baseURL: options.baseUrl,
        // The client insists on a key; without one the header is left out (a null default header removes it).
        apiKey: options.apiKey ?? 'unused',
        ...(options.apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
        organization: null,
        project: null,
        timeout: options.timeoutMs,
        maxRetries: MAX_RETRIES,
      });
      const { toTool, toSkill } = toolNames(skills);
      const body: ChatCompletionCreateParamsBase = {
        model: options.model,
        temperature: 0,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: message },
        ],
        ...(skills.length > 0 ? { tools: toolsOf(skills, toTool), tool_choice: 'auto' as const } : {}),
      };
      // The client's timeout ends a request that gets no headers; this one also ends a stream that stops.
      const deadline = AbortSignal.timeout(options.timeoutMs);
      const aborted = signal ? AbortSignal.any([signal, deadline]) : deadline;
      let answer: Answer;
      try {
        if (options.stream) {
          answer = await assembleStream(await client.chat.completions.create({ ...body, stream: true }, { signal: aborted }));
        } else {
          const completion = await client.chat.completions.create({ ...body, stream: false }, { signal: aborted });
          const choice = completion.choices?.[0]?.message;
          const toolCall = choice?.tool_calls?.find((call) => call.type === 'function');
          answer = {
            toolCall: toolCall?.type === 'function' ? { name: String(toolCall.function?.name ?? ''), arguments: String(toolCall.function?.arguments ?? '') } : null,
            content: typeof choice?.content === 'string' ? choice.content : '',
          };
        }
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw aiProviderFailed(reasonOf(openai, error, deadline.aborted));
      }
      return resolutionOf(answer, toSkill);
    },
  };
}
