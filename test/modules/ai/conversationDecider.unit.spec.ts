// The conversation decider, given events / when command / then events: a conversation is its owner's
// alone; another user, a deleted one and none at all are not found; the head event alone is the state.
import { describe, expect, it } from 'vitest';
import { conversationDecider } from '../../../domain/ai/conversation.ts';
import type { ConversationMessage } from '../../../domain/ai/conversationEvents.ts';
import { deciderSpecification } from '../../domain/deciderSpecification.ts';

const spec = deciderSpecification(conversationDecider);
const conversationId = '0190d6a0-0000-7000-8000-000000000001';
const alice = '0190d6a0-0000-7000-8000-00000000000a';
const bob = '0190d6a0-0000-7000-8000-00000000000b';
const said = (messageId: string, text: string): ConversationMessage => ({ messageId, role: 'user', text, status: null, skill: null, approvalId: null, stagedId: null, code: null });
const answered: ConversationMessage = { messageId: 'm2', role: 'assistant', text: 'Ran items.list.', status: 'executed', skill: 'items.list', approvalId: null, stagedId: null, code: null };
const asked = said('m1', 'list articles');
const started = { type: 'ai_conversation.exchanged' as const, data: { conversationId, userId: alice, title: 'list articles', messages: [asked, answered] } };
const added = { type: 'ai_conversation.exchanged' as const, data: { conversationId, userId: alice, title: null, messages: [said('m3', 'hello'), answered] } };
const deleted = { type: 'ai_conversation.deleted' as const, data: { conversationId, userId: alice } };

describe('conversation decider', () => {
  it('starts a conversation with its first chat as one event, once', () => {
    spec.given([]).when({ type: 'exchange', conversationId, userId: alice, title: 'list articles', messages: [asked, answered] }).then([started]);
    spec.given([started]).when({ type: 'exchange', conversationId, userId: alice, title: 'again', messages: [asked] }).thenThrows('CONFLICT', 409);
  });

  it('adds a chat and deletes for its owner only', () => {
    spec.given([started]).when({ type: 'exchange', conversationId, userId: alice, title: null, messages: [said('m3', 'hello'), answered] }).then([added]);
    spec.given([started, added]).when({ type: 'deleteConversation', userId: alice }).then([deleted]);
    spec.given([started, added]).when({ type: 'exchange', conversationId, userId: bob, title: null, messages: [said('m4', 'mine now')] }).thenThrows('NOT_FOUND', 404);
    spec.given([started, added]).when({ type: 'deleteConversation', userId: bob }).thenThrows('NOT_FOUND', 404);
  });

  it('finds no conversation that was never started or was deleted', () => {
    for (const history of [[], [started, added, deleted]]) {
      spec.given(history).when({ type: 'exchange', conversationId, userId: alice, title: null, messages: [said('m9', 'hi')] }).thenThrows('NOT_FOUND', 404);
      spec.given(history).when({ type: 'deleteConversation', userId: alice }).thenThrows('NOT_FOUND', 404);
    }
  });

  it('takes its state from the head event alone (the stream is loaded by its head)', () => {
    for (const history of [[started], [started, added], [started, added, deleted]]) {
      const folded = history.reduce(conversationDecider.evolve, conversationDecider.initialState());
      expect(conversationDecider.evolve(conversationDecider.initialState(), history.at(-1)!)).toEqual(folded);
    }
  });
});
