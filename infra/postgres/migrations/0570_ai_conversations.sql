-- The copilot's conversations (docs/ai-copilot.md): each user's conversations of a site and their
-- messages, written by projections/aiConversationsProjection.ts from the `ai_conversation.*` events.
-- A deleted conversation's rows are removed (its events stay in the log).
--
-- What each read uses:
-- * GET /ai/conversations (the caller's, most recent activity first, paged): ai_conversations_by_user.
-- * The chat's and the messages route's check that a conversation is the caller's: the primary key.
-- * GET /ai/conversations/:id/messages (oldest first, paged): the messages' primary key.
CREATE TABLE ai_conversations (
  site_id       text        NOT NULL,
  id            uuid        NOT NULL,
  user_id       text        NOT NULL,
  title         text        NOT NULL,
  message_count integer     NOT NULL,
  version       integer     NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX ai_conversations_by_user ON ai_conversations (site_id, user_id, updated_at DESC, id DESC);
SELECT svc_enable_site_rls('ai_conversations');

CREATE TABLE ai_conversation_messages (
  site_id         text        NOT NULL,
  conversation_id uuid        NOT NULL,
  -- The stream position of the chat's event, and the message's place in it: its order in the conversation.
  position        integer     NOT NULL,
  seq             smallint    NOT NULL,
  id              uuid        NOT NULL,
  role            text        NOT NULL CHECK (role IN ('user', 'assistant')),
  text            text        NOT NULL,
  status          text        CHECK (status IN ('executed', 'pending_approval', 'staged', 'answered', 'refused')),
  skill           text,
  approval_id     text,
  staged_id       text,
  code            text,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, conversation_id, position, seq)
);
SELECT svc_enable_site_rls('ai_conversation_messages');
