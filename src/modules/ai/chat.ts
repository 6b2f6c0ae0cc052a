// POST /ai/chat (docs/ai-copilot.md): one message of a user's conversation. The provider (the
// built-in parser, or an OpenAI-compatible API) turns it into a skill call over the skills the caller
// may use, and the skill runner runs it as the caller, with the conversation as the agent; or it is a
// plain answer. The conversation records the message and what came of it, refusals included.
import { randomUUID } from 'node:crypto';
import { MAX_CONVERSATION_TEXT, MAX_CONVERSATION_TITLE, type AssistantStatus, type ConversationMessage } from '../../../domain/ai/conversationEvents.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Principal, UserPrincipal } from '../../auth/principal.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { CommandClient } from '../../runtime/commandRegistry.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { ChatAnswer, ChatBody } from './chatSchemas.ts';
import { findConversation } from './conversationQueries.ts';
import { recordExchange } from './conversations.ts';
import { intentProviderFor } from './providers/intentProvider.ts';
import { listSkills, runSkill } from './skillRunner.ts';
import type { SkillCall, SkillOutcome } from './skillTypes.ts';

export interface ChatCall {
  siteId: string;
  principal: Principal;
  input: ChatBody;
  metadata: EventMetadata;
  client: CommandClient;
}

/** What a chat came to before its conversation id is added: a skill's outcome, or a plain answer. */
type ChatResult = SkillOutcome | { status: 'answered'; text: string };

/** Text a conversation may keep: at most `max` characters, no NUL, no lone surrogate (PostgreSQL refuses both). */
export function storableText(text: string, max: number): string {
  const clean = text.replace(/\u0000/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  if (clean.length <= max) return clean;
  // Cut before a pair's high half rather than between its halves.
  const cut = /[\ud800-\udbff]/.test(clean[max - 1]!) ? max - 1 : max;
  return clean.slice(0, cut);
}

/**
 * The collection a call names, fitted to the site's: as named, else its plural with `s`, else without
 * a final `s`; exactly, else ignoring case. One the site lacks is left as named (the skill says so).
 */
export function fitCollection(collections: ReadonlySet<string>, name: string): string {
  const candidates = [name, `${name}s`, ...(name.endsWith('s') ? [name.slice(0, -1)] : [])];
  const exact = candidates.find((candidate) => collections.has(candidate));
  if (exact !== undefined) return exact;
  const lower = new Map([...collections].map((collection) => [collection.toLowerCase(), collection]));
  for (const candidate of candidates) {
    const found = lower.get(candidate.toLowerCase());
    if (found !== undefined) return found;
  }
  return name;
}

async function fitCollections(context: AppContext, siteId: string, call: SkillCall): Promise<SkillCall> {
  const { collection, collections } = call.input;
  if (typeof collection !== 'string' && !Array.isArray(collections)) return call;
  const names = new Set((await context.schemas.site(siteId)).collections.keys());
  const input = { ...call.input };
  if (typeof collection === 'string') input.collection = fitCollection(names, collection);
  if (Array.isArray(collections)) input.collections = collections.map((name: unknown) => (typeof name === 'string' ? fitCollection(names, name) : name));
  return { skill: call.skill, input };
}

function message(role: ConversationMessage['role'], text: string, answer: Partial<Pick<ConversationMessage, 'skill' | 'approvalId' | 'stagedId' | 'code'>> & { status?: AssistantStatus } = {}): ConversationMessage {
  return {
    messageId: randomUUID(),
    role,
    text: storableText(text, MAX_CONVERSATION_TEXT),
    status: answer.status ?? null,
    skill: answer.skill ?? null,
    approvalId: answer.approvalId ?? null,
    stagedId: answer.stagedId ?? null,
    code: answer.code ?? null,
  };
}

/** The assistant's message for what a chat came to. The result of an executed skill is answered, never recorded (it may hold what the log must not). */
function assistantMessage(result: ChatResult): ConversationMessage {
  switch (result.status) {
    case 'executed':
      return message('assistant', `Ran ${result.skill}.`, { status: 'executed', skill: result.skill });
    case 'pending_approval':
      return message('assistant', result.message, { status: 'pending_approval', skill: result.skill, approvalId: result.approvalId });
    case 'staged':
      return message('assistant', result.message, { status: 'staged', skill: result.skill, stagedId: result.stagedId });
    case 'answered':
      return message('assistant', result.text, { status: 'answered' });
  }
}

function answerOf(result: ChatResult, conversationId: string): ChatAnswer {
  switch (result.status) {
    case 'executed':
      return { status: 'executed', skill: result.skill, data: result.data, conversationId };
    case 'pending_approval':
      return { status: 'pending_approval', skill: result.skill, approvalId: result.approvalId, message: result.message, conversationId };
    case 'staged':
      return { status: 'staged', skill: result.skill, stagedId: result.stagedId, runAfter: result.runAfter, message: result.message, conversationId };
    case 'answered':
      return { status: 'answered', message: result.text, conversationId };
  }
}

async function resolveAndRun(context: AppContext, call: ChatCall, principal: UserPrincipal, conversationId: string): Promise<ChatResult> {
  const skills = await listSkills(context, call.siteId, principal);
  const resolution = await intentProviderFor(context.config).resolve({ message: call.input.message, skills });
  if (resolution.kind === 'reply') return { status: 'answered', text: resolution.text };
  return runSkill(context, {
    siteId: call.siteId,
    principal,
    agent: { id: `conversation:${conversationId}`, role: null },
    call: await fitCollections(context, call.siteId, resolution.call),
    requestId: call.metadata.requestId ?? randomUUID(),
    client: call.client,
  });
}

/** The same refusal, naming the conversation it was recorded in. */
function inConversation(error: AppError, conversationId: string): AppError {
  return new AppError(error.code, error.message, {
    path: error.path,
    extensions: { ...error.extensions, conversationId },
    headers: error.headers,
    unprocessable: error.status === 422,
  });
}

/**
 * One chat: the conversation (the caller's, or a new one), the resolution and the skill's outcome, both
 * messages recorded. A refusal (SKILL_DENIED, AI_PROVIDER_FAILED, a skill's own error) is recorded too
 * and answered with the conversation in `extensions.conversationId`; another's conversation is 404 with
 * nothing recorded.
 */
export async function chat(context: AppContext, call: ChatCall): Promise<ChatAnswer> {
  const principal = userPrincipal(call.principal);
  const { siteId } = call;
  const continued = call.input.conversationId ?? null;
  if (continued !== null) {
    const found = await context.database.withSiteReads(siteId, (tx) => findConversation(tx, siteId, continued, principal.userId));
    if (!found) throw errors.notFound('Conversation not found');
  }
  const conversationId = continued ?? randomUUID();
  const record = (answer: ConversationMessage) =>
    recordExchange(context, {
      siteId,
      conversationId,
      userId: principal.userId,
      start: continued === null ? { title: storableText(call.input.message, MAX_CONVERSATION_TITLE) } : null,
      messages: [message('user', call.input.message), answer],
      metadata: call.metadata,
    });

  let result: ChatResult;
  try {
    result = await resolveAndRun(context, call, principal, conversationId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await record(message('assistant', error.message, { status: 'refused', code: error.code }));
    throw inConversation(error, conversationId);
  }
  await record(assistantMessage(result));
  return answerOf(result, conversationId);
}
