// The shapes the compliance-report routes take and answer (docs/compliance-reports.md), shared with the
// area's command.
import { z } from 'zod';
import { REPORT_FORMATS, REPORT_STATUSES } from '../../../domain/reports/events.ts';

/** Longest period a report covers. */
export const MAX_REPORT_DAYS = 366;
const DAY_MS = 86_400_000;
export const MAX_REPORT_FILTERS = 100;

const uniqueNames = (maxLength: number) =>
  z
    .array(z.string().min(1).max(maxLength))
    .max(MAX_REPORT_FILTERS)
    .transform((names) => [...new Set(names)].sort());

export const requestReportBody = z
  .object({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    collections: uniqueNames(64).optional(),
    actions: uniqueNames(100).optional(),
    format: z.enum(REPORT_FORMATS),
  })
  .strict()
  .superRefine((body, issues) => {
    const span = Date.parse(body.to) - Date.parse(body.from);
    if (span <= 0) issues.addIssue({ code: 'custom', message: '`to` must be later than `from`', path: ['to'] });
    else if (span > MAX_REPORT_DAYS * DAY_MS) issues.addIssue({ code: 'custom', message: `A report covers at most ${MAX_REPORT_DAYS} days`, path: ['to'] });
  });
export type RequestReportBody = z.output<typeof requestReportBody>;

export const reportSchema = z.object({
  id: z.string(),
  status: z.enum(REPORT_STATUSES),
  params: z.object({
    from: z.string(),
    to: z.string(),
    collections: z.array(z.string()),
    actions: z.array(z.string()),
    format: z.enum(REPORT_FORMATS),
  }),
  requestedBy: z.object({ kind: z.string(), id: z.string().nullable() }),
  progress: z.object({ entries: z.number(), total: z.number().optional() }),
  attempts: z.number(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  error: z.string().optional(),
  sha256: z.string().optional(),
  bytes: z.number().optional(),
  entries: z.number().optional(),
  firstPosition: z.number().optional(),
  lastPosition: z.number().optional(),
  valid: z.boolean().optional(),
  problems: z.number().optional(),
  signature: z.string().optional(),
  keyId: z.string().optional(),
});
export type ReportView = z.infer<typeof reportSchema>;

/** GET /reports/:id/signature: the signed manifest and the key that verifies it. */
export const signedManifestSchema = z.object({
  manifest: z.record(z.string(), z.unknown()),
  payload: z.string(),
  signature: z.string(),
  keyId: z.string(),
  algorithm: z.literal('Ed25519'),
  publicKey: z.object({ pem: z.string(), jwk: z.record(z.string(), z.unknown()) }),
});
export type SignedManifest = z.infer<typeof signedManifestSchema>;
