// Each site's staged agent actions: the call, for whom, when it runs, and what came of it (docs/agent-goals.md).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentStagedActionsProjection = defineProjection({
  name: 'agent-staged-actions',
  mode: 'inline',
  tables: ['agent_staged_actions'],
  handlers: {
    'agent_staged.staged': async (tx, event) => {
      const { stagedId, skill, input, requester, agent, constitutionVersion, runAfter } = event.data;
      await tx.query(sql`
        INSERT INTO agent_staged_actions (site_id, id, skill, input, requester, agent, on_behalf_of, constitution_version, run_after, status, created_at, updated_at)
        VALUES (${event.siteId}, ${stagedId}, ${skill}, ${JSON.stringify(input)}::jsonb, ${JSON.stringify(requester)}::jsonb, ${JSON.stringify(agent)}::jsonb,
                ${requester.userId}, ${constitutionVersion}, ${runAfter}::timestamptz, 'pending', ${event.recordedAt}, ${event.recordedAt})`);
    },
    'agent_staged.vetoed': async (tx, event) => {
      const { stagedId, vetoedBy, reason } = event.data;
      await tx.query(sql`
        UPDATE agent_staged_actions SET status = 'vetoed', vetoed_by = ${vetoedBy}, veto_reason = ${reason}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${stagedId}`);
    },
    'agent_staged.started': async (tx, event) => {
      await tx.query(sql`UPDATE agent_staged_actions SET status = 'running', updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.stagedId}`);
    },
    'agent_staged.finished': async (tx, event) => {
      const { stagedId, status, code, message } = event.data;
      await tx.query(sql`
        UPDATE agent_staged_actions SET status = ${status}, code = ${code}, message = ${message}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${stagedId}`);
    },
  },
});
