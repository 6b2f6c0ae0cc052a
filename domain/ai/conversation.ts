// A copilot conversation (stream `<siteId>/ai-conversation/<id>`): started by one user's first chat,
// then each chat adds its exchange (one event); only its owner adds to it or deletes it, and another's
// (or a deleted one) is not found, as if it did not exist. Every event carries the owner: the head is the state.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { aiConversationEventSchemas, type AiConversationEvent, type ConversationMessage } from './conversationEvents.ts';

export type ConversationCommand =
  /** A chat's messages; `title` starts a new conversation (its first chat), null adds to an open one. */
  | { type: 'exchange'; conversationId: string; userId: string; title: string | null; messages: ConversationMessage[] }
  | { type: 'deleteConversation'; userId: string };

export interface ConversationState {
  status: 'absent' | 'open' | 'deleted';
  conversationId: string | null;
  ownerId: string | null;
}

const notFound = () => new AppError('NOT_FOUND', 'Conversation not found');

export const conversationDecider: Decider<ConversationState, ConversationCommand, AiConversationEvent> = {
  eventTypes: eventTypesOf(aiConversationEventSchemas),
  initialState: () => ({ status: 'absent', conversationId: null, ownerId: null }),
  evolve(_state, event) {
    const { conversationId, userId } = event.data;
    return { status: event.type === 'ai_conversation.deleted' ? 'deleted' : 'open', conversationId, ownerId: userId };
  },
  decide(command, state) {
    if (command.type === 'exchange' && command.title !== null) {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The conversation already exists');
      const { conversationId, userId, title, messages } = command;
      return [{ type: 'ai_conversation.exchanged', data: { conversationId, userId, title, messages } }];
    }
    // Another user's conversation, a deleted one and none at all answer alike: nothing to tell apart.
    if (state.status !== 'open' || state.ownerId !== command.userId) throw notFound();
    const conversationId = state.conversationId!;
    if (command.type === 'deleteConversation') return [{ type: 'ai_conversation.deleted', data: { conversationId, userId: command.userId } }];
    return [{ type: 'ai_conversation.exchanged', data: { conversationId, userId: command.userId, title: null, messages: command.messages } }];
  },
};
