-- AI approvals (docs/ai-skills.md): each dangerous skill call an agent asked for, as it is now,
-- written by projections/aiApprovalsProjection.ts from the `ai_approval.*` events; and the agent
-- provenance of every audit entry (who the agent acted for, who approved, under which role and
-- constitution), written by projections/auditProjection.ts from the events' `metadata.agent`.
--
-- What each read uses:
-- * GET /ai/approvals/:id and the decide routes: the primary key (site_id, id).
-- * GET /ai/approvals of a site administrator (by status, newest first, paged): ai_approvals_by_status.
-- * GET /ai/approvals of anyone else (their own requests): ai_approvals_by_requester.
CREATE TABLE ai_approvals (
  site_id              text        NOT NULL,
  id                   uuid        NOT NULL,
  status               text        NOT NULL CHECK (status IN ('pending_approval', 'approved', 'rejected', 'executed', 'failed', 'stale')),
  skill                text        NOT NULL,
  input                jsonb       NOT NULL,
  requester_id         text        NOT NULL,
  requester            jsonb       NOT NULL,
  agent                jsonb       NOT NULL,
  pins                 jsonb       NOT NULL,
  diff                 jsonb       NOT NULL,
  constitution_version integer,
  reviews              jsonb       NOT NULL DEFAULT '[]'::jsonb,
  decided_by           text,
  decision_reason      text,
  error                jsonb,
  version              integer     NOT NULL,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  decided_at           timestamptz,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX ai_approvals_by_status ON ai_approvals (site_id, status, created_at DESC, id DESC);
CREATE INDEX ai_approvals_by_requester ON ai_approvals (site_id, requester_id, status, created_at DESC, id DESC);
SELECT svc_enable_site_rls('ai_approvals');

-- Agent provenance of audit entries: null for anything an agent did not write.
ALTER TABLE audit_log
  ADD COLUMN on_behalf_of         text,
  ADD COLUMN approved_by          text,
  ADD COLUMN approval_id          text,
  ADD COLUMN agent_role           text,
  ADD COLUMN constitution_version integer;
