// The AI approval decider, given events / when command / then events: one decision, a person's
// approval never replaced by an agent's, self-review and the separate-approver rule, and how a run ends.
import { describe, it } from 'vitest';
import { approvalDecider, type ApprovalCommand } from '../../../domain/ai/approval.ts';
import { deciderSpecification } from '../../domain/deciderSpecification.ts';

const spec = deciderSpecification(approvalDecider);
const approvalId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const requester = { userId: 'user-1', via: 'apiKey' as const, apiKeyId: 'key-1', roleId: null };
const agent = { id: 'mcp:1', role: 'editor', runId: null, intentId: null };
const requestData = {
  approvalId,
  skill: 'items.delete',
  input: { collection: 'articles', id: 'a' },
  requester,
  agent,
  pins: [{ streamId: 's/item/articles/a', version: 3 }],
  diff: { kind: 'delete' },
  constitutionVersion: 2,
};
const request: ApprovalCommand = { type: 'requestApproval', ...requestData };
const requested = { type: 'ai_approval.requested', data: requestData };
const approved = { type: 'ai_approval.approved', data: { approvalId, approvedBy: 'admin', reason: null } };
const review = (reviewerId: string, reviewerApiKeyId: string | null, reviewerAgentId: string | null, decision: 'approved' | 'rejected' = 'approved'): ApprovalCommand => ({
  type: 'agentReview',
  decision,
  reviewerId,
  reviewerApiKeyId,
  reviewerAgentId,
  reason: null,
});

describe('the AI approval decider', () => {
  it('records a request once', () => {
    spec.given([]).when(request).then([requested as never]);
    spec.given([requested]).when(request).thenThrows('CONFLICT', 409);
    spec.given([]).when({ type: 'markExecuted' }).thenThrows('NOT_FOUND', 404);
  });

  it('takes one decision: approve or reject a pending approval, never a decided one', () => {
    spec.given([requested]).when({ type: 'approve', approvedBy: 'admin', reason: null, separateApprover: false }).then([approved as never]);
    spec.given([requested]).when({ type: 'reject', rejectedBy: 'admin', reason: 'No' }).then([{ type: 'ai_approval.rejected', data: { approvalId, rejectedBy: 'admin', reason: 'No' } }]);
    spec.given([requested, approved]).when({ type: 'approve', approvedBy: 'other', reason: null, separateApprover: false }).thenThrows('CONFLICT', 409);
    spec.given([requested, approved]).when({ type: 'reject', rejectedBy: 'other', reason: null }).thenThrows('CONFLICT', 409);
  });

  it('keeps the requester from approving their own call when the site separates them', () => {
    spec.given([requested]).when({ type: 'approve', approvedBy: 'user-1', reason: null, separateApprover: true }).thenThrows('PERMISSION_DENIED', 403);
    spec.given([requested]).when({ type: 'approve', approvedBy: 'user-1', reason: null, separateApprover: false }).then([
      { type: 'ai_approval.approved', data: { approvalId, approvedBy: 'user-1', reason: null } },
    ]);
  });

  it('records an agent’s approval without deciding, lets its rejection end it, and refuses a review of its own request', () => {
    const reviewed = { type: 'ai_approval.agent_reviewed', data: { approvalId, decision: 'approved', reviewerId: 'user-2', reviewerApiKeyId: 'key-2', reviewerAgentId: null, reason: null } };
    spec.given([requested]).when(review('user-2', 'key-2', null)).then([reviewed as never]);
    // Still pending: a person decides.
    spec.given([requested, reviewed]).when({ type: 'approve', approvedBy: 'admin', reason: null, separateApprover: false }).then([approved as never]);
    const rejected = { ...reviewed, data: { ...reviewed.data, decision: 'rejected' } };
    spec.given([requested, rejected]).when({ type: 'approve', approvedBy: 'admin', reason: null, separateApprover: false }).thenThrows('CONFLICT', 409);
    spec.given([requested]).when(review('user-1', null, null)).thenThrows('PERMISSION_DENIED', 403);
    spec.given([requested]).when(review('user-9', 'key-1', null)).thenThrows('PERMISSION_DENIED', 403);
    spec.given([requested]).when(review('user-9', null, 'mcp:1')).thenThrows('PERMISSION_DENIED', 403);
  });

  it('ends an approved run executed, failed or stale, once', () => {
    spec.given([requested, approved]).when({ type: 'markExecuted' }).then([{ type: 'ai_approval.executed', data: { approvalId } }]);
    spec.given([requested]).when({ type: 'markExecuted' }).thenThrows('CONFLICT', 409);
    spec.given([requested, approved]).when({ type: 'markFailed', code: 'SKILL_DENIED', message: 'Lost' }).then([
      { type: 'ai_approval.failed', data: { approvalId, code: 'SKILL_DENIED', message: 'Lost' } },
    ]);
    spec.given([requested]).when({ type: 'markStale', movedStreams: ['s'] }).then([{ type: 'ai_approval.staled', data: { approvalId, movedStreams: ['s'] } }]);
    const executed = { type: 'ai_approval.executed', data: { approvalId } };
    spec.given([requested, approved, executed]).when({ type: 'markStale', movedStreams: ['s'] }).thenThrows('CONFLICT', 409);
    spec.given([requested, approved, executed]).when({ type: 'markFailed', code: 'X', message: 'y' }).thenThrows('CONFLICT', 409);
  });
});
