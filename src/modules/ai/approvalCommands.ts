// The AI approvals' commands (the command registry, docs/architecture.md): a person's decision and an
// agent's review. Who may decide is checked in their handlers (./approvalDecisions.ts), with the approval.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { agentReviewApproval, decideApproval } from './approvalDecisions.ts';
import { decideApprovalBody } from './approvalSchemas.ts';

const decisionInput = decideApprovalBody.safeExtend({ id: z.string() });

const decide = defineCommand({
  name: 'ai.decideApproval',
  description: "Approve or reject an AI approval: { id, decision: 'approved' | 'rejected', reason? }. An approval runs the call once, as the original principal.",
  input: decisionInput,
  access: 'bearer',
  dangerous: true,
  async handler(context, { siteId, principal, input, metadata, access, client }) {
    const approvalId = uuidOr404(input.id, 'Approval');
    return decideApproval(context, { siteId, principal, approvalId, decision: input.decision, reason: input.reason ?? null, access: await access(), metadata, client });
  },
});

const agentReview = defineCommand({
  name: 'ai.agentReviewApproval',
  description: "An agent's review of an AI approval (needs review:<area>; not its own request): a rejection ends it, an approval is recorded and still waits for a person.",
  input: decisionInput,
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, principal, input, metadata, access }) {
    const approvalId = uuidOr404(input.id, 'Approval');
    return agentReviewApproval(context, { siteId, principal, approvalId, decision: input.decision, reason: input.reason ?? null, access: await access(), metadata });
  },
});

export const approvalCommands = { decide, agentReview };
