// AI approvals: dangerous skill calls waiting for a person, their decision, and an agent's review (docs/ai-skills.md).
import type { OperationCatalogue } from '../operationEntry.ts';

export const aiApprovalOperations: OperationCatalogue = {
  'GET /ai/approvals': {
    summary: 'AI approvals (pending by default)',
    description:
      'Each with the exact call, who asked for whom, the stream versions it read (`pins`) and the diff it would make. A site administrator sees the site’s; anyone else their own ' +
      'requests. `?status=` picks another status; paged newest first.',
  },
  'GET /ai/approvals/{id}': {
    summary: 'One AI approval',
    description: 'Visible to a site administrator, the requester, and holders of `review:<area>` of its skill; otherwise 404.',
  },
  'POST /ai/approvals/{id}/decide': {
    summary: 'Approve or reject an AI approval',
    description:
      '`{ decision: "approved" | "rejected", reason? }`. The decider is a person signed in (an API key is 403), the requester, a site administrator or a holder of `review:<area>`; with ' +
      'the setting `aiSeparateApprover` the requester may not decide (403). An approval runs the call once, as the original principal with the rights it holds now: the answer is ' +
      '`{ approval, result }` with status `executed`, or `failed` with `error` saying why (the requester is gone, a right was lost). A pinned stream that moved since is 409 CONFLICT and ' +
      'the approval becomes `stale`. Deciding twice (or concurrently) is 409; a reject runs nothing.',
    errors: ['CONFLICT', 'SKILL_DENIED'],
  },
  'POST /agent/approvals/{id}/agent-decide': {
    summary: 'An agent’s review of an AI approval',
    description:
      '`{ decision, reason? }`; needs `review:<area>` of the skill (`review:items`). An agent may not review its own request (same principal, API key or agent id: 403). `rejected` ' +
      'rejects the approval; `approved` is recorded and the approval stays pending: a dangerous call never runs without a person’s approval.',
  },
};
