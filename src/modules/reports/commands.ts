// The compliance reports' command (the command registry, docs/architecture.md), bound to the area's
// runtime: requesting a report queues its job.
import { defineCommand } from '../../runtime/appCommand.ts';
import { requestReport } from './handlers.ts';
import type { ReportsRuntime } from './reportsRuntime.ts';
import { requestReportBody } from './schemas.ts';

export function reportCommands(runtime: ReportsRuntime) {
  const request = defineCommand({
    name: 'reports.request',
    description:
      'Build a signed compliance report of every audit entry of the site in [from, to) (optionally only some collections and actions), as JSON or CSV, ' +
      'with the signed log checkpoints that cover the period and their verification; runs as a job (GET /reports/:id for its progress).',
    input: requestReportBody,
    access: 'siteAdmin',
    dangerous: false,
    handler: (context, { siteId, input, metadata }) => requestReport(context, runtime.enqueue, siteId, input, metadata),
  });
  return { request };
}
