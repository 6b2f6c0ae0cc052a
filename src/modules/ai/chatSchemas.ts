// The shapes of the copilot's routes (docs/ai-copilot.md): the chat's body and answers, conversations
// and their messages.
import { z } from 'zod';
import { ASSISTANT_STATUSES, CONVERSATION_ROLES, MAX_CONVERSATION_TEXT } from '../../../domain/ai/conversationEvents.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { pageMetaSchema } from '../../server/routeKit.ts';

/** The longest chat message (characters): what a conversation keeps of it. */
export const MAX_CHAT_MESSAGE = MAX_CONVERSATION_TEXT;

export const chatBody = z
  .object({
    message: z.string().trim().min(1, 'message must not be empty').max(MAX_CHAT_MESSAGE),
    /** Continue this conversation (the caller's own); absent: start one. */
    conversationId: uuidSchema.optional(),
  })
  .strict();
export type ChatBody = z.infer<typeof chatBody>;

const executedSchema = z.object({ status: z.literal('executed'), skill: z.string(), data: z.unknown(), conversationId: z.string() });
const answeredSchema = z.object({ status: z.literal('answered'), message: z.string(), conversationId: z.string() });
const pendingSchema = z.object({ status: z.literal('pending_approval'), skill: z.string(), approvalId: z.string(), message: z.string(), conversationId: z.string() });
const stagedSchema = z.object({ status: z.literal('staged'), skill: z.string(), stagedId: z.string(), runAfter: z.string(), message: z.string(), conversationId: z.string() });

/** 200: a skill ran, or a plain answer. */
export const chatDoneSchema = z.union([executedSchema, answeredSchema]);
/** 202: the call waits for a person's approval, or for its veto window (staged). */
export const chatWaitingSchema = z.union([pendingSchema, stagedSchema]);
export type ChatAnswer = z.infer<typeof chatDoneSchema> | z.infer<typeof chatWaitingSchema>;

export const conversationSchema = z.object({
  id: z.string(),
  /** The start of its first message. */
  title: z.string(),
  messageCount: z.number(),
  createdAt: z.string(),
  /** Its last message's time: the list is newest first by it. */
  updatedAt: z.string(),
});
export type ConversationView = z.infer<typeof conversationSchema>;

export const conversationMessageViewSchema = z.object({
  id: z.string(),
  role: z.enum(CONVERSATION_ROLES),
  text: z.string(),
  /** Assistant messages: what came of the chat (null on the user's). */
  status: z.enum(ASSISTANT_STATUSES).nullable(),
  skill: z.string().nullable(),
  approvalId: z.string().nullable(),
  stagedId: z.string().nullable(),
  /** A refusal's error code. */
  code: z.string().nullable(),
  createdAt: z.string(),
});
export type ConversationMessageView = z.infer<typeof conversationMessageViewSchema>;

export const conversationListSchema = z.object({ data: z.array(conversationSchema), meta: pageMetaSchema });
export const messageListSchema = z.object({ data: z.array(conversationMessageViewSchema), meta: pageMetaSchema });
