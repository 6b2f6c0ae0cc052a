// Events of the copilot's conversations (docs/ai-copilot.md): a conversation (stream
// `<siteId>/ai-conversation/<id>`) belongs to one user of one site; each chat is one event holding the
// user's message and the assistant's answer (the first, with the title, starts the conversation); a
// delete ends it. Every event names its owner, so the stream's head alone says whose it is and whether
// it is open (the conversation decider loads only the head).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

/** The longest text a message keeps (characters); a longer assistant text is cut, a longer user message refused. */
export const MAX_CONVERSATION_TEXT = 4_000;
/** The longest title of a conversation: the start of its first message. */
export const MAX_CONVERSATION_TITLE = 80;

export const CONVERSATION_ROLES = ['user', 'assistant'] as const;
export type ConversationRole = (typeof CONVERSATION_ROLES)[number];

/** What came of a chat, as its assistant message records it: the skill outcome, a plain answer, or a refusal (`code`). */
export const ASSISTANT_STATUSES = ['executed', 'pending_approval', 'staged', 'answered', 'refused'] as const;
export type AssistantStatus = (typeof ASSISTANT_STATUSES)[number];

export const conversationMessageSchema = z.object({
  messageId: z.string(),
  role: z.enum(CONVERSATION_ROLES),
  text: z.string().max(MAX_CONVERSATION_TEXT),
  /** Assistant messages only (null on the user's). */
  status: z.enum(ASSISTANT_STATUSES).nullable(),
  skill: z.string().nullable(),
  approvalId: z.string().nullable(),
  stagedId: z.string().nullable(),
  /** The error code of a refusal (SKILL_DENIED, AI_PROVIDER_FAILED, ...). */
  code: z.string().nullable(),
});
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

export const aiConversationEventSchemas = {
  /** One chat: its messages in order (the user's, then the assistant's); `title` set on the chat that started the conversation, else null. */
  'ai_conversation.exchanged': z.object({
    conversationId: z.string(),
    userId: z.string(),
    title: z.string().max(MAX_CONVERSATION_TITLE).nullable(),
    messages: z.array(conversationMessageSchema).min(1).max(2),
  }),
  'ai_conversation.deleted': z.object({ conversationId: z.string(), userId: z.string() }),
};
export type AiConversationEvent = EventOf<typeof aiConversationEventSchemas>;
