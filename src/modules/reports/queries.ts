// Reads of the compliance_reports read model (docs/compliance-reports.md), shaped for the answer.
import type { ReportParams } from '../../../domain/reports/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { ReportView } from './schemas.ts';

interface ReportRow {
  id: string;
  status: ReportView['status'];
  params: ReportParams;
  requested_by: { kind: string; id: string | null };
  attempts: number;
  progress_entries: number;
  progress_total: number | null;
  entries: number | null;
  bytes: number | null;
  sha256: string | null;
  first_position: number | null;
  last_position: number | null;
  valid: boolean | null;
  problems: number | null;
  signature: string | null;
  key_id: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const present = <Value>(key: string, value: Value | null) => (value === null ? {} : { [key]: value });

function viewOf(row: ReportRow): ReportView {
  return {
    id: row.id,
    status: row.status,
    params: row.params,
    requestedBy: row.requested_by,
    progress: { entries: row.progress_entries, ...present('total', row.progress_total) },
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
    ...present('startedAt', row.started_at?.toISOString() ?? null),
    ...present('completedAt', row.completed_at?.toISOString() ?? null),
    ...present('error', row.error),
    ...present('sha256', row.sha256),
    ...present('bytes', row.bytes),
    ...present('entries', row.entries),
    ...present('firstPosition', row.first_position),
    ...present('lastPosition', row.last_position),
    ...present('valid', row.valid),
    ...present('problems', row.problems),
    ...present('signature', row.signature),
    ...present('keyId', row.key_id),
  };
}

/** One report of the site by id (the primary key), or null: another site's report is none of its own. */
export async function findReport(tx: Queryable, siteId: string, reportId: string): Promise<ReportView | null> {
  const [row] = await tx.query<ReportRow>(sql`SELECT * FROM compliance_reports WHERE site_id = ${siteId} AND id = ${reportId}::uuid`);
  return row ? viewOf(row) : null;
}

/** A page of the site's reports, newest first (compliance_reports_list), and their total. */
export async function listReports(tx: Queryable, siteId: string, query: PageQuery): Promise<{ reports: ReportView[]; total: number }> {
  const rows = await tx.query<ReportRow>(sql`
    SELECT * FROM compliance_reports WHERE site_id = ${siteId}
     ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM compliance_reports WHERE site_id = ${siteId}`);
  return { reports: rows.map(viewOf), total: count?.total ?? 0 };
}

/** The object keys of a report's file and of its signed manifest, in the site's storage. */
export function reportObjectKeys(reportId: string, format: ReportParams['format']): { file: string; manifest: string } {
  return { file: `reports/${reportId}.${format}`, manifest: `reports/${reportId}.manifest.json` };
}
