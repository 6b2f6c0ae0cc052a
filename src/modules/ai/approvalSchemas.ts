// The shapes of the AI approval routes (docs/ai-skills.md): what they take and what they answer.
import { z } from 'zod';
import { APPROVAL_DECISIONS, APPROVAL_STATUSES } from '../../../domain/ai/approvalEvents.ts';
import { pageQuery } from '../../server/routeKit.ts';

export const decideApprovalBody = z.object({ decision: z.enum(APPROVAL_DECISIONS), reason: z.string().trim().min(1).max(1_000).optional() }).strict();
export type DecideApprovalBody = z.infer<typeof decideApprovalBody>;

export const listApprovalsQuery = pageQuery.extend({ status: z.enum(APPROVAL_STATUSES).default('pending_approval') });

export const approvalSchema = z.object({
  id: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  /** The exact call the agent asked for. */
  call: z.object({ skill: z.string(), input: z.record(z.string(), z.unknown()) }),
  requester: z.object({ userId: z.string(), via: z.enum(['session', 'apiKey', 'external', 'flow']), apiKeyId: z.string().nullable(), roleId: z.string().nullable() }),
  agent: z.object({ id: z.string(), role: z.string().nullable(), runId: z.string().nullable(), intentId: z.string().nullable() }),
  /** The streams the call read, at the versions they had: a later write to one makes the approval stale. */
  pins: z.array(z.object({ streamId: z.string(), version: z.number() })),
  /** What the call would change (docs/ai-skills.md, "The diff"). */
  diff: z.record(z.string(), z.unknown()),
  constitutionVersion: z.number().nullable(),
  reviews: z.array(z.object({ decision: z.enum(APPROVAL_DECISIONS), reviewerId: z.string(), reviewerAgentId: z.string().nullable(), reason: z.string().nullable(), at: z.string() })),
  decidedBy: z.string().nullable(),
  decisionReason: z.string().nullable(),
  /** Why it failed or went stale. */
  error: z.object({ code: z.string(), message: z.string() }).passthrough().nullable(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  decidedAt: z.string().nullable(),
});
export type ApprovalView = z.infer<typeof approvalSchema>;

/** A decision's answer: the approval as it ended, and what the call answered when it ran. */
export const decisionSchema = z.object({ approval: approvalSchema, result: z.unknown() });
export type DecisionView = z.infer<typeof decisionSchema>;
