// The copilot's commands (the command registry, docs/architecture.md): a chat, and the delete of one's
// own conversation. Whose a conversation is, is checked in their handlers (./chat.ts, ./conversations.ts).
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { chat } from './chat.ts';
import { chatBody } from './chatSchemas.ts';
import { deleteConversation } from './conversations.ts';

const chatCommand = defineCommand({
  name: 'ai.chat',
  description:
    'One message to the copilot: { message, conversationId? }. It is resolved to one skill call (or a plain answer) and run as the caller; the conversation records both messages.',
  input: chatBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata, client }) => chat(context, { siteId, principal, input, metadata, client }),
});

const deleteConversationCommand = defineCommand({
  name: 'ai.deleteConversation',
  description: "Delete one of the caller's copilot conversations: { id }; another's is not found.",
  input: z.object({ id: z.string() }).strict(),
  access: 'bearer',
  dangerous: true,
  async handler(context, { siteId, principal, input, metadata }) {
    const conversationId = uuidOr404(input.id, 'Conversation');
    await deleteConversation(context, { siteId, conversationId, userId: userPrincipal(principal).userId, metadata });
  },
});

export const conversationCommands = { chat: chatCommand, delete: deleteConversationCommand };
