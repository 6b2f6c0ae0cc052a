// Each site's AI approvals as they are now (docs/ai-skills.md): the exact call, who asked and for
// whom, the pinned stream versions, the diff, the agents' reviews and the decision. Inline: the
// approval an agent's call answers is readable at once.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

type ApprovalEvent = StoredEvent<
  'ai_approval.agent_reviewed' | 'ai_approval.approved' | 'ai_approval.rejected' | 'ai_approval.executed' | 'ai_approval.failed' | 'ai_approval.staled'
>;

/** Moves the approval to `status` (and what the event adds), at the event's stream version. */
async function moveTo(tx: Queryable, event: ApprovalEvent, status: string | null, set = sql``): Promise<void> {
  await tx.query(sql`
    UPDATE ai_approvals SET status = coalesce(${status}::text, status), version = ${event.streamPosition}, updated_at = ${event.recordedAt}${set}
     WHERE site_id = ${event.siteId} AND id = ${event.data.approvalId}::uuid`);
}

export const aiApprovalsProjection = defineProjection({
  name: 'ai_approvals',
  mode: 'inline',
  tables: ['ai_approvals'],
  handlers: {
    'ai_approval.requested': async (tx, event) => {
      const data = event.data;
      await tx.query(sql`
        INSERT INTO ai_approvals (site_id, id, status, skill, input, requester_id, requester, agent, pins, diff, constitution_version, version, created_at, updated_at)
        VALUES (${event.siteId}, ${data.approvalId}::uuid, 'pending_approval', ${data.skill}, ${JSON.stringify(data.input)}::jsonb, ${data.requester.userId},
                ${JSON.stringify(data.requester)}::jsonb, ${JSON.stringify(data.agent)}::jsonb, ${JSON.stringify(data.pins)}::jsonb, ${JSON.stringify(data.diff)}::jsonb,
                ${data.constitutionVersion}, ${event.streamPosition}, ${event.recordedAt}, ${event.recordedAt})
        ON CONFLICT (site_id, id) DO NOTHING`);
    },
    'ai_approval.agent_reviewed': async (tx, event) => {
      const { decision, reviewerId, reviewerAgentId, reason } = event.data;
      const review = { decision, reviewerId, reviewerAgentId, reason, at: event.recordedAt.toISOString() };
      const rejected = decision === 'rejected';
      await moveTo(
        tx,
        event,
        rejected ? 'rejected' : null,
        sql`, reviews = reviews || ${JSON.stringify([review])}::jsonb${rejected ? sql`, decided_by = ${reviewerId}, decision_reason = ${reason}, decided_at = ${event.recordedAt}` : sql``}`,
      );
    },
    'ai_approval.approved': (tx, event) =>
      moveTo(tx, event, 'approved', sql`, decided_by = ${event.data.approvedBy}, decision_reason = ${event.data.reason}, decided_at = ${event.recordedAt}`),
    'ai_approval.rejected': (tx, event) =>
      moveTo(tx, event, 'rejected', sql`, decided_by = ${event.data.rejectedBy}, decision_reason = ${event.data.reason}, decided_at = ${event.recordedAt}`),
    'ai_approval.executed': (tx, event) => moveTo(tx, event, 'executed'),
    'ai_approval.failed': (tx, event) => moveTo(tx, event, 'failed', sql`, error = ${JSON.stringify({ code: event.data.code, message: event.data.message })}::jsonb`),
    'ai_approval.staled': (tx, event) =>
      moveTo(tx, event, 'stale', sql`, error = ${JSON.stringify({ code: 'CONFLICT', message: 'A pinned stream moved since the approval was asked for', movedStreams: event.data.movedStreams })}::jsonb`),
  },
});
