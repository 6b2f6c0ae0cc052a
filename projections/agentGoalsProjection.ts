// Each site's agent goals: their steps, their run's status and each step's outcome, and how they were
// settled (docs/agent-goals.md).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentGoalsProjection = defineProjection({
  name: 'agent-goals',
  mode: 'inline',
  tables: ['agent_goals'],
  handlers: {
    'agent_goal.created': async (tx, event) => {
      const { goalId, title, instructions, steps, role, intentId, execution, requester } = event.data;
      await tx.query(sql`
        INSERT INTO agent_goals (site_id, id, title, instructions, steps, role, intent_id, execution, status, requester, created_by, created_at, updated_at)
        VALUES (${event.siteId}, ${goalId}, ${title}, ${instructions}, ${JSON.stringify(steps)}::jsonb, ${role}, ${intentId}::uuid, ${execution}, 'planned',
                ${JSON.stringify(requester)}::jsonb, ${requester.userId}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'agent_goal.decomposed': async (tx, event) => {
      await tx.query(sql`
        UPDATE agent_goals SET steps = ${JSON.stringify(event.data.steps)}::jsonb, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.goalId}`);
    },
    'agent_goal.run_queued': async (tx, event) => {
      await tx.query(sql`
        UPDATE agent_goals SET status = 'queued', run_id = ${event.data.runId}::uuid, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.goalId}`);
    },
    'agent_goal.run_started': async (tx, event) => {
      await tx.query(sql`
        UPDATE agent_goals SET status = 'running', run_id = ${event.data.runId}::uuid, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.goalId}`);
    },
    'agent_goal.step_recorded': async (tx, event) => {
      const { goalId, runId: _runId, ...step } = event.data;
      await tx.query(sql`
        UPDATE agent_goals SET outcomes = outcomes || jsonb_build_array(${JSON.stringify(step)}::jsonb), updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${goalId}`);
    },
    'agent_goal.run_finished': async (tx, event) => {
      const { goalId, status, code, message } = event.data;
      await tx.query(sql`
        UPDATE agent_goals SET status = ${status}, code = ${code}, message = ${message}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${goalId}`);
    },
    'agent_goal.settled': async (tx, event) => {
      const { goalId, outcome, summary, settledBy } = event.data;
      await tx.query(sql`
        UPDATE agent_goals SET outcome = ${outcome}, summary = ${summary}, settled_by = ${settledBy}, settled_at = ${event.recordedAt}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${goalId}`);
    },
  },
});
