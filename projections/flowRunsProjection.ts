// Flow runs and their steps: status, input, each step's outcome. Runs past the retention horizon are
// pruned by the flows area's `flow-runs` task (a declared maintainer); the log keeps them.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const flowRunsProjection = defineProjection({
  name: 'flow_runs',
  mode: 'inline',
  tables: ['flow_run_steps', 'flow_runs'],
  maintainers: [
    { table: 'flow_runs', writer: 'src/modules/flows/flowRetention.ts (maintainFlowRuns, by svc_flow_runs_prune)', why: 'prunes runs finished before SVC_FLOW_RUN_RETENTION_DAYS; the log keeps them' },
    { table: 'flow_run_steps', writer: 'src/modules/flows/flowRetention.ts (maintainFlowRuns, by svc_flow_runs_prune)', why: 'prunes the steps of the runs it prunes' },
  ],
  handlers: {
    'flow_run.queued': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO flow_runs (site_id, id, flow_id, status, trigger, input, depth, dry_run, replay_of, started_at)
        VALUES (${event.siteId}, ${d.runId}, ${d.flowId}, 'queued', ${d.trigger}, ${JSON.stringify(d.input ?? null)}::jsonb, ${d.depth}, ${d.dryRun},
                ${d.replayOf}::uuid, ${event.recordedAt})
        ON CONFLICT DO NOTHING`);
    },
    'flow_run.started': async (tx, event) => {
      await tx.query(sql`UPDATE flow_runs SET status = 'running', executing_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.runId}`);
    },
    'flow_run.step_recorded': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO flow_run_steps (site_id, run_id, seq, node_id, operation, status, output, error, duration_ms, attempts, started_at)
        VALUES (${event.siteId}, ${d.runId}, ${d.seq}, ${d.nodeId}, ${d.operation}, ${d.status}, ${JSON.stringify(d.output ?? null)}::jsonb, ${d.error},
                ${d.durationMs}, ${d.attempts}, ${d.startedAt}::timestamptz)
        ON CONFLICT DO NOTHING`);
    },
    'flow_run.finished': async (tx, event) => {
      await tx.query(sql`
        UPDATE flow_runs SET status = ${event.data.status}, error = ${event.data.error}, finished_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.runId}`);
    },
  },
});
