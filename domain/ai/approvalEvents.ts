// Events of AI approvals (docs/ai-skills.md): a dangerous skill call an agent asked for (stream
// `<siteId>/ai-approval/<id>`), with the exact call, the stream versions it read and the diff it would
// make; an agent's review; a person's decision; and how its run ended (executed, failed, or stale: a
// pinned stream moved since, so a fresh approval is needed).
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

export const APPROVAL_STATUSES = ['pending_approval', 'approved', 'rejected', 'executed', 'failed', 'stale'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const APPROVAL_DECISIONS = ['approved', 'rejected'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Who asked: the principal the agent acted for, as its credential named it. */
export const approvalRequesterSchema = z.object({
  userId: z.string(),
  via: z.enum(['session', 'apiKey', 'external', 'flow']),
  apiKeyId: z.string().nullable(),
  roleId: z.string().nullable(),
});
export type ApprovalRequester = z.infer<typeof approvalRequesterSchema>;

export const approvalAgentSchema = z.object({
  id: z.string(),
  role: z.string().nullable(),
  runId: z.string().nullable(),
  intentId: z.string().nullable(),
});
export type ApprovalAgent = z.infer<typeof approvalAgentSchema>;

/** A stream the call read, at the version it had when the approval was asked for. */
export const approvalPinSchema = z.object({ streamId: z.string(), version: z.number().int() });
export type ApprovalPin = z.infer<typeof approvalPinSchema>;

export const aiApprovalEventSchemas = {
  'ai_approval.requested': z.object({
    approvalId: z.string(),
    skill: z.string(),
    input: contentObjectSchema,
    requester: approvalRequesterSchema,
    agent: approvalAgentSchema,
    pins: z.array(approvalPinSchema),
    /** What the call would change: per skill (docs/ai-skills.md); pii/phi values are never in it. */
    diff: contentObjectSchema,
    constitutionVersion: z.number().int().nullable(),
  }),
  /** An agent holding `review:<area>` reviewed it: a rejection ends it, an approval is recorded only. */
  'ai_approval.agent_reviewed': z.object({
    approvalId: z.string(),
    decision: z.enum(APPROVAL_DECISIONS),
    reviewerId: z.string(),
    reviewerApiKeyId: z.string().nullable(),
    reviewerAgentId: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  'ai_approval.approved': z.object({ approvalId: z.string(), approvedBy: z.string(), reason: z.string().nullable() }),
  'ai_approval.rejected': z.object({ approvalId: z.string(), rejectedBy: z.string(), reason: z.string().nullable() }),
  'ai_approval.executed': z.object({ approvalId: z.string() }),
  'ai_approval.failed': z.object({ approvalId: z.string(), code: z.string(), message: z.string() }),
  'ai_approval.staled': z.object({ approvalId: z.string(), movedStreams: z.array(z.string()) }),
};
export type AiApprovalEvent = EventOf<typeof aiApprovalEventSchemas>;
