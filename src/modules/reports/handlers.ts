// The compliance-report command: a report is requested (its stream starts, the read model shows it
// queued) and its job is queued; the worker (generateReport.ts) builds it.
import { randomUUID } from 'node:crypto';
import { reportDecider } from '../../../domain/reports/report.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { reportStream } from './generateReport.ts';
import { findReport } from './queries.ts';
import type { RequestReportBody, ReportView } from './schemas.ts';

export async function requestReport(
  context: AppContext,
  enqueue: (siteId: string, reportId: string) => Promise<void>,
  siteId: string,
  input: RequestReportBody,
  metadata: EventMetadata,
): Promise<ReportView> {
  const reportId = randomUUID();
  const params = {
    from: new Date(input.from).toISOString(),
    to: new Date(input.to).toISOString(),
    collections: input.collections ?? [],
    actions: input.actions ?? [],
    format: input.format,
  };
  const report = await inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: reportStream(siteId, reportId),
      decider: reportDecider,
      command: { type: 'requestReport', reportId, params },
      metadata,
    });
    return (await findReport(tx, siteId, reportId))!;
  });
  await enqueue(siteId, reportId);
  return report;
}
