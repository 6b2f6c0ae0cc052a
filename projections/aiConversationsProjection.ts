// Each user's copilot conversations of a site and their messages (docs/ai-copilot.md). Inline: the
// conversation a chat answers is readable at once, and the next chat's check of its owner sees it.
// One statement per chat: its messages inserted, and the conversation inserted (its first chat) or
// counted on. A delete removes the conversation's rows: its messages are gone from every read.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const aiConversationsProjection = defineProjection({
  name: 'ai_conversations',
  mode: 'inline',
  tables: ['ai_conversation_messages', 'ai_conversations'],
  handlers: {
    'ai_conversation.exchanged': async (tx, event) => {
      const { conversationId, userId, title, messages } = event.data;
      const rows = JSON.stringify(messages.map((message, seq) => ({ ...message, seq })));
      const insertMessages = sql`
        INSERT INTO ai_conversation_messages (site_id, conversation_id, position, seq, id, role, text, status, skill, approval_id, staged_id, code, created_at)
        SELECT ${event.siteId}, ${conversationId}::uuid, ${event.streamPosition}, m.seq, m."messageId", m.role, m.text, m.status, m.skill, m."approvalId",
               m."stagedId", m.code, ${event.recordedAt}
          FROM jsonb_to_recordset(${rows}::jsonb) AS m(seq smallint, "messageId" uuid, role text, text text, status text, skill text, "approvalId" text,
                                                       "stagedId" text, code text)
        ON CONFLICT (site_id, conversation_id, position, seq) DO NOTHING`;
      if (title !== null) {
        await tx.query(sql`
          WITH messages AS (${insertMessages})
          INSERT INTO ai_conversations (site_id, id, user_id, title, message_count, version, created_at, updated_at)
          VALUES (${event.siteId}, ${conversationId}::uuid, ${userId}, ${title}, ${messages.length}, ${event.streamPosition}, ${event.recordedAt}, ${event.recordedAt})
          ON CONFLICT (site_id, id) DO NOTHING`);
        return;
      }
      await tx.query(sql`
        WITH messages AS (${insertMessages})
        UPDATE ai_conversations SET message_count = message_count + ${messages.length}, version = ${event.streamPosition}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${conversationId}::uuid AND version < ${event.streamPosition}`);
    },
    'ai_conversation.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM ai_conversation_messages WHERE site_id = ${event.siteId} AND conversation_id = ${event.data.conversationId}::uuid`);
      await tx.query(sql`DELETE FROM ai_conversations WHERE site_id = ${event.siteId} AND id = ${event.data.conversationId}::uuid`);
    },
  },
});
