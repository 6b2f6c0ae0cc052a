// Writing the copilot's conversations (docs/ai-copilot.md): a chat records the user's message and the
// assistant's answer as one event on the conversation's stream (starting it on a first chat); its owner may
// delete it. Another user's conversation, or another site's, is not found.
import { conversationDecider, type ConversationCommand } from '../../../domain/ai/conversation.ts';
import type { ConversationMessage } from '../../../domain/ai/conversationEvents.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';

export const conversationStream = (siteId: string, conversationId: string) => streamId(siteId, 'ai-conversation', conversationId);

export interface ExchangeRecord {
  siteId: string;
  conversationId: string;
  userId: string;
  /** Set on a conversation's first chat: its title. */
  start: { title: string } | null;
  messages: ConversationMessage[];
  metadata: EventMetadata;
}

/** Appends the messages of one chat (the head of the stream says whose the conversation is). */
export async function recordExchange(context: AppContext, record: ExchangeRecord): Promise<void> {
  const { siteId, conversationId, userId, messages } = record;
  const command: ConversationCommand = { type: 'exchange', conversationId, userId, title: record.start?.title ?? null, messages };
  await handleCommand(context, {
    siteId,
    streamId: conversationStream(siteId, conversationId),
    decider: conversationDecider,
    load: 'head',
    command,
    metadata: record.metadata,
  });
}

/** Deletes the user's conversation: 404 for anyone else's, a deleted one, or none. */
export async function deleteConversation(context: AppContext, options: { siteId: string; conversationId: string; userId: string; metadata: EventMetadata }): Promise<void> {
  const command: ConversationCommand = { type: 'deleteConversation', userId: options.userId };
  await handleCommand(context, {
    siteId: options.siteId,
    streamId: conversationStream(options.siteId, options.conversationId),
    decider: conversationDecider,
    load: 'head',
    command,
    metadata: options.metadata,
  });
}
