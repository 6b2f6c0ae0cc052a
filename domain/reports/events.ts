// Events of compliance reports (docs/compliance-reports.md): a report's stream `<siteId>/report/<id>`
// is requested with its parameters, started by the worker that builds it, its progress recorded
// sparingly (at most one event per few seconds or per many entries), then completed or failed once.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const REPORT_FORMATS = ['json', 'csv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const REPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const reportParamsSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** Empty: every collection (and entries of no collection). */
  collections: z.array(z.string()),
  /** Empty: every action. */
  actions: z.array(z.string()),
  format: z.enum(REPORT_FORMATS),
});
export type ReportParams = z.infer<typeof reportParamsSchema>;

export const reportEventSchemas = {
  'report.requested': z.object({ reportId: z.string(), params: reportParamsSchema }),
  /** `attempt` counts the worker's starts: a job that died with its instance starts the report over. */
  'report.started': z.object({ reportId: z.string(), attempt: z.number().int(), total: z.number().int() }),
  'report.progressed': z.object({ reportId: z.string(), entries: z.number().int(), total: z.number().int() }),
  'report.completed': z.object({
    reportId: z.string(),
    entries: z.number().int(),
    bytes: z.number().int(),
    sha256: z.string(),
    firstPosition: z.number().int().nullable(),
    lastPosition: z.number().int().nullable(),
    /** The signed manifest's verification verdict, and the number of problems it names. */
    valid: z.boolean(),
    problems: z.number().int(),
    signature: z.string(),
    keyId: z.string(),
    generatedAt: z.string(),
  }),
  'report.failed': z.object({ reportId: z.string(), error: z.string() }),
};
export type ReportEvent = EventOf<typeof reportEventSchemas>;
