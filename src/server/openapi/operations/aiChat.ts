// The AI copilot: the chat through the provider port and the skill runner, and each user's conversations (docs/ai-copilot.md).
import type { OperationCatalogue } from '../operationEntry.ts';

export const aiChatOperations: OperationCatalogue = {
  'POST /ai/chat': {
    summary: 'A message to the AI copilot',
    description:
      '`{ message, conversationId? }` (message 1–4000 characters; conversationId continues one of the caller’s conversations, absent starts one). The message is resolved to one skill ' +
      'call by the built-in parser, or by the OpenAI-compatible provider when `SVC_AI_BASE_URL` is set, and run as the caller with the conversation as the agent. 200 ' +
      '`{ status: "executed", skill, data, conversationId }` or `{ status: "answered", message, conversationId }` when no skill fits; 202 `{ status: "pending_approval", approvalId, ' +
      'message }` for a dangerous skill (nothing runs before a person approves it) or `{ status: "staged", stagedId, runAfter }`. A refusal is the error envelope with the conversation ' +
      'in `extensions.conversationId`, and is recorded in it: 403 SKILL_DENIED (nothing changed), 502 AI_PROVIDER_FAILED. Another user’s or site’s conversation is 404, nothing recorded. ' +
      'Rate limit `aiChat` (60 a minute per user by default).',
    errors: ['SKILL_DENIED', 'AI_PROVIDER_FAILED', 'AGENT_FROZEN', 'NOT_FOUND'],
  },
  'GET /ai/conversations': {
    summary: 'The caller’s copilot conversations',
    description: 'The caller’s own conversations of the site (never another user’s, administrators included), the most recently active first, paged: `{ id, title, messageCount, createdAt, updatedAt }`.',
  },
  'GET /ai/conversations/{id}/messages': {
    summary: 'The messages of one of the caller’s conversations',
    description:
      'Oldest first, paged: each `{ id, role: "user" | "assistant", text, status, skill, approvalId, stagedId, code, createdAt }`; an assistant message says what came of the chat ' +
      '(`executed`, `pending_approval`, `staged`, `answered`, `refused` with its error `code`); the data a skill answered is not kept. Another user’s, a deleted or an unknown conversation is 404.',
  },
  'DELETE /ai/conversations/{id}': {
    summary: 'Delete one of the caller’s conversations',
    description: 'Its messages are gone from every read at once. Another user’s, a deleted or an unknown conversation is 404.',
    response: { status: 204, description: 'Deleted.' },
  },
};
