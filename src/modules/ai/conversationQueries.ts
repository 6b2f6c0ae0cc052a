// Reads of the copilot's conversations (ai_conversations and ai_conversation_messages, migration
// 0570), always of one user: another user's conversation is none of the caller's.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { ConversationMessageView, ConversationView } from './chatSchemas.ts';

interface ConversationRow {
  id: string;
  title: string;
  message_count: number;
  created_at: Date;
  updated_at: Date;
}

interface MessageRow {
  id: string;
  role: ConversationMessageView['role'];
  text: string;
  status: ConversationMessageView['status'];
  skill: string | null;
  approval_id: string | null;
  staged_id: string | null;
  code: string | null;
  created_at: Date;
}

function conversationOf(row: ConversationRow): ConversationView {
  return { id: row.id, title: row.title, messageCount: row.message_count, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
}

function messageOf(row: MessageRow): ConversationMessageView {
  return {
    id: row.id,
    role: row.role,
    text: row.text,
    status: row.status,
    skill: row.skill,
    approvalId: row.approval_id,
    stagedId: row.staged_id,
    code: row.code,
    createdAt: row.created_at.toISOString(),
  };
}

/** The user's conversation of the site, or null (another user's, a deleted one, and an id that is not a UUID name none). */
export async function findConversation(tx: Queryable, siteId: string, conversationId: string, userId: string): Promise<ConversationView | null> {
  if (!isUuid(conversationId)) return null;
  const [row] = await tx.query<ConversationRow>(sql`
    SELECT id::text, title, message_count, created_at, updated_at FROM ai_conversations
     WHERE site_id = ${siteId} AND id = ${conversationId}::uuid AND user_id = ${userId}`);
  return row ? conversationOf(row) : null;
}

/** A page of the user's conversations, the most recently active first (ai_conversations_by_user). */
export async function listConversations(tx: Queryable, siteId: string, userId: string, page: PageQuery): Promise<{ conversations: ConversationView[]; total: number }> {
  const rows = await tx.query<ConversationRow>(sql`
    SELECT id::text, title, message_count, created_at, updated_at FROM ai_conversations
     WHERE site_id = ${siteId} AND user_id = ${userId}
     ORDER BY updated_at DESC, id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM ai_conversations WHERE site_id = ${siteId} AND user_id = ${userId}`);
  return { conversations: rows.map(conversationOf), total: count?.total ?? 0 };
}

/** A page of a conversation's messages, oldest first. */
export async function listMessages(tx: Queryable, siteId: string, conversationId: string, page: PageQuery): Promise<{ messages: ConversationMessageView[]; total: number }> {
  const rows = await tx.query<MessageRow>(sql`
    SELECT id::text, role, text, status, skill, approval_id, staged_id, code, created_at FROM ai_conversation_messages
     WHERE site_id = ${siteId} AND conversation_id = ${conversationId}::uuid
     ORDER BY position, seq LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM ai_conversation_messages WHERE site_id = ${siteId} AND conversation_id = ${conversationId}::uuid`);
  return { messages: rows.map(messageOf), total: count?.total ?? 0 };
}
