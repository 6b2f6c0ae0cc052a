// Helpers of the compliance-report tests (docs/compliance-reports.md): a site with two collections,
// item writes, the log sealed by signed checkpoints, reports requested and waited for, their file
// downloaded as bytes, and the offline verifier of the docs run as its own Node process.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { Database } from '../../../../infra/postgres/database.ts';
import { sql } from '../../../../infra/postgres/sql.ts';
import { takeLogCheckpoints } from '../../../../src/modules/audit/checkpointTask.ts';
import { createCollection } from '../../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService } from '../../../support/testService.ts';
import { withHelpers, type AccessSite } from '../../access/support.ts';

export type Json = TestResponse['body'];
export type ReportSite = AccessSite;

const HOUR = 3_600_000;
const POLL_MS = 50;

/** A fresh site with `articles` and `notes` (a `title` each). */
export async function createReportSite(service: TestService, prefix = 'rpt'): Promise<ReportSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  for (const name of ['articles', 'notes']) await createCollection(service, site, name, [{ field: 'title', type: 'string' }]);
  return site;
}

/** Creates an item and changes its title once: an item.created and an item.updated entry, in `requestId`'s request when given. */
export async function writeItem(site: ReportSite, collection: string, title: string, requestId?: string): Promise<string> {
  const headers = requestId ? { 'x-request-id': requestId } : undefined;
  const created = await site.as(site.adminToken, 'POST', `/items/${collection}`, { title }, headers);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  const changed = await site.as(site.adminToken, 'PATCH', `/items/${collection}/${id}`, { title: `${title} (changed)` }, headers);
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  return id;
}

/**
 * Lets the audit log catch up, then runs the checkpoint task (each run later than the last by more
 * than SVC_CHECKPOINT_INTERVAL) until every event of the sites is covered by a signed checkpoint.
 */
export async function sealLog(service: TestService, owner: Database, siteIds: string[]): Promise<void> {
  await service.context.daemon.drain();
  const deadline = Date.now() + 30_000;
  for (let run = 1; ; run += 1) {
    await takeLogCheckpoints(service.context, new Date(Date.now() + run * 2 * HOUR));
    const rows = await owner.query<{ site_id: string; sealed: boolean }>(sql`
      SELECT s.site_id, coalesce(h.pending_events = 0 AND h.event_count = (SELECT count(*) FROM events e WHERE e.site_id = s.site_id), false) AS sealed
        FROM unnest(${siteIds}::text[]) AS s(site_id) LEFT JOIN log_checkpoint_heads h ON h.site_id = s.site_id`);
    if (rows.every((row) => row.sealed)) return;
    if (Date.now() > deadline) throw new Error('the log was not sealed in time');
    await delay(25);
  }
}

/** POST /reports/compliance; the 202 answer's report. */
export async function requestReport(site: ReportSite, body: Record<string, unknown>): Promise<Json> {
  const response = await site.admin('POST', '/reports/compliance', body);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  return response.body.data;
}

/** Polls GET /reports/:id until the report is completed or failed. */
export async function waitForReport(site: ReportSite, reportId: string, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await site.admin('GET', `/reports/${reportId}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    if (found.body.data.status === 'completed' || found.body.data.status === 'failed') return found.body.data;
    if (Date.now() > deadline) throw new Error(`report ${reportId} still ${found.body.data.status} after ${timeoutMs} ms`);
    await delay(POLL_MS);
  }
}

export async function completedReport(site: ReportSite, body: Record<string, unknown>): Promise<Json> {
  const report = await waitForReport(site, (await requestReport(site, body)).id);
  expect(report.status, JSON.stringify(report)).toBe('completed');
  return report;
}

/** GET /reports/:id/download as bytes, with its headers. */
export async function download(site: ReportSite, reportId: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(`${site.service.url}/api/v1/reports/${reportId}/download`, { headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

export async function signatureOf(site: ReportSite, reportId: string): Promise<Json> {
  const response = await site.admin('GET', `/reports/${reportId}/signature`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** The site's audit entries of the period, in log order, as the owner reads them. */
export function auditEntries(owner: Database, siteId: string, from: string, to: string) {
  return owner.query<{ position: number; event_id: string; action: string; actor_id: string | null; collection: string | null; request_id: string | null }>(sql`
    SELECT position, event_id, action, actor_id, details->>'collection' AS collection, request_id FROM audit_log
     WHERE site_id = ${siteId} AND occurred_at >= ${from}::timestamptz AND occurred_at < ${to}::timestamptz ORDER BY position`);
}

const execFileAsync = promisify(execFile);
const VERIFIER = join(import.meta.dirname, 'verifyReport.mjs');

/** Runs the docs' offline verifier on the file's bytes, the signature answer and the public key PEM, each written to a file. */
export async function verifyOffline(bytes: Buffer, signatureAnswer: unknown, pem: string): Promise<{ ok: boolean; result: Json }> {
  const folder = mkdtempSync(join(tmpdir(), 'svc-report-verify-'));
  const paths = { file: join(folder, 'report'), signature: join(folder, 'signature.json'), pem: join(folder, 'key.pem') };
  writeFileSync(paths.file, bytes);
  writeFileSync(paths.signature, JSON.stringify(signatureAnswer));
  writeFileSync(paths.pem, pem);
  try {
    const { stdout } = await execFileAsync(process.execPath, [VERIFIER, paths.file, paths.signature, paths.pem]);
    return { ok: true, result: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (failed.code === 1 && failed.stdout) return { ok: false, result: JSON.parse(failed.stdout) };
    throw error;
  }
}
