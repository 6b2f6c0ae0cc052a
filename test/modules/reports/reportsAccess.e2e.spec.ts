// Compliance reports: who may ask and read (administrators only: 401 without credentials, 403 to a
// member), another site's reports (404 on every route, never listed), bodies refused with 400 and a
// path with nothing written, 409 before completion, and the states and progress a run records. On a
// database of the file's own: the report queue and storage belong to this file's service.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createObjectStorage } from '../../../infra/storage/createObjectStorage.ts';
import { generateReport } from '../../../src/modules/reports/generateReport.ts';
import { requestReport as requestQueuedReport } from '../../../src/modules/reports/handlers.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { completedReport, createReportSite, download, writeItem, type ReportSite } from './support/reportHelpers.ts';

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });
const owner = fresh.owner;
/** The storage the service's reports runtime writes to (the same folder, from the same config). */
const storage = createObjectStorage(service.context.config);
const period = () => ({ from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() - 1).toISOString() });

/** A report of the site, queued without a job (so it stays queued until the test runs it). */
async function queuedReport(site: ReportSite, params: Record<string, unknown> = {}) {
  return requestQueuedReport(service.context, async () => {}, site.siteId, { ...period(), format: 'json', ...params } as never, {
    actor: { kind: 'user', id: site.adminUserId },
  });
}

const routes = (id: string) => [`/reports/${id}`, `/reports/${id}/download`, `/reports/${id}/signature`];

describe('compliance reports: access and input', () => {
  it('answers another site’s report ids with 404 on every route, and never lists them', async () => {
    const site = await createReportSite(service);
    const other = await createReportSite(service, 'rpt-other');
    const report = await completedReport(other, { ...period(), format: 'csv' });
    for (const path of routes(report.id)) {
      const response = await site.admin('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.errors[0].code).toBe('NOT_FOUND');
    }
    for (const path of routes('not-a-uuid')) expect((await site.admin('GET', path)).status, path).toBe(404);
    const listed = await site.admin('GET', '/reports');
    expect(listed.body).toEqual({ data: [], meta: { total: 0, page: 1, pageSize: 25 } });
    expect((await other.admin('GET', '/reports')).body.data.map((found: { id: string }) => found.id)).toEqual([report.id]);
  });

  it('answers 401 without credentials and 403 to a member on every route', async () => {
    const site = await createReportSite(service);
    const member = await createMember(service, site);
    const { id } = await queuedReport(site);
    const body = { ...period(), format: 'json' };
    for (const [method, path] of [['POST', '/reports/compliance'], ['GET', '/reports'], ...routes(id).map((route) => ['GET', route])] as const) {
      expect((await site.as(null, method, path, method === 'POST' ? body : undefined)).status, `${method} ${path}`).toBe(401);
      const refused = await site.as(member.token, method, path, method === 'POST' ? body : undefined);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    }
    const [count] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM compliance_reports WHERE site_id = ${site.siteId}`);
    expect(count!.n).toBe(1);
  });

  it('refuses bad bodies with 400 VALIDATION_FAILED at the offending path, and writes nothing', async () => {
    const site = await createReportSite(service);
    const { from, to } = period();
    const cases: [unknown, (string | number)[]][] = [
      [{ from, to }, ['body', 'format']],
      [{ from, to, format: 'xml' }, ['body', 'format']],
      [{ from: 'yesterday', to, format: 'json' }, ['body', 'from']],
      [{ from, to: '2030-13-45T00:00:00Z', format: 'json' }, ['body', 'to']],
      [{ from: to, to: from, format: 'json' }, ['body', 'to']],
      [{ from, to: from, format: 'json' }, ['body', 'to']],
      [{ from: '2020-01-01T00:00:00Z', to: '2021-01-02T00:00:01Z', format: 'json' }, ['body', 'to']],
      [{ from, to, format: 'json', collections: Array.from({ length: 101 }, (_, n) => `c${n}`) }, ['body', 'collections']],
      [{ from, to, format: 'json', collections: [''] }, ['body', 'collections', 0]],
      [{ from, to, format: 'json', actions: ['x'.repeat(101)] }, ['body', 'actions', 0]],
      [{ from, to, format: 'json', actions: 'item.created' }, ['body', 'actions']],
      [{ from, to, format: 'json', siteId: 'elsewhere' }, ['body']],
      [[], ['body']],
    ];
    for (const [body, path] of cases) {
      const response = await site.admin('POST', '/reports/compliance', body);
      expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(response.body.errors[0], JSON.stringify(body).slice(0, 200)).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    const malformed = await site.as(site.adminToken, 'POST', '/reports/compliance', undefined, { 'content-type': 'application/json' });
    expect(malformed.status).toBe(400);
    const written = await owner.query(sql`SELECT 1 FROM events WHERE site_id = ${site.siteId} AND type LIKE 'report.%'`);
    expect(written).toEqual([]);
    expect(await owner.query(sql`SELECT 1 FROM compliance_reports WHERE site_id = ${site.siteId}`)).toEqual([]);
  });

  it('answers 409 for the file and the signature until the report is completed', async () => {
    const site = await createReportSite(service);
    const report = await queuedReport(site);
    expect(report).toMatchObject({ status: 'queued', progress: { entries: 0 } });
    expect((await download(site, report.id)).status).toBe(409);
    const signature = await site.admin('GET', `/reports/${report.id}/signature`);
    expect(signature.status).toBe(409);
    expect(signature.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['params', 'id'] });
  });

  it('records its start, its progress a page at a time (never per entry) and its end, and does nothing when run again', async () => {
    const site = await createReportSite(service);
    const since = new Date(Date.now() - 1).toISOString();
    for (let n = 0; n < 3; n += 1) await writeItem(site, 'articles', `Item ${n}`);
    await service.context.daemon.drain();
    const report = await queuedReport(site, { from: since, to: new Date(Date.now() + 1).toISOString() });
    expect(await generateReport(service.context, storage, site.siteId, report.id, { pageSize: 2, progressEveryEntries: 4, progressEveryMs: 60_000 })).toBe(true);
    const events = await owner.query<{ type: string; data: Record<string, unknown> }>(sql`
      SELECT type, data FROM events WHERE stream_id = ${`${site.siteId}/report/${report.id}`} ORDER BY stream_position`);
    expect(events.map((event) => event.type)).toEqual(['report.requested', 'report.started', 'report.progressed', 'report.completed']);
    expect(events[1]!.data).toMatchObject({ attempt: 1, total: 6 });
    expect(events[2]!.data).toEqual({ reportId: report.id, entries: 4, total: 6 });
    const detail = await site.admin('GET', `/reports/${report.id}`);
    expect(detail.body.data).toMatchObject({ status: 'completed', attempts: 1, progress: { entries: 6, total: 6 }, entries: 6 });
    expect(detail.body.data.completedAt >= detail.body.data.startedAt).toBe(true);
    expect((await download(site, report.id)).status).toBe(200);
    expect(await generateReport(service.context, storage, site.siteId, report.id)).toBe(false);
  });

  it('marks a report whose run fails as failed, with the reason', async () => {
    const site = await createReportSite(service);
    const report = await queuedReport(site);
    await generateReport(service.context, storage, site.siteId, report.id, { temporaryFolder: '/nonexistent-folder-for-reports' });
    const detail = await site.admin('GET', `/reports/${report.id}`);
    expect(detail.body.data).toMatchObject({ status: 'failed', error: 'The report could not be built (ENOENT)' });
    expect((await download(site, report.id)).status).toBe(409);
  });

  it('lists the site’s reports newest first, a page at a time', async () => {
    const site = await createReportSite(service);
    const first = await queuedReport(site);
    const second = await queuedReport(site, { format: 'csv' });
    const page = await site.admin('GET', '/reports?limit=1&page=1');
    expect(page.body).toMatchObject({ data: [{ id: second.id }], meta: { total: 2, page: 1, pageSize: 1 } });
    expect((await site.admin('GET', '/reports?limit=1&page=2')).body.data.map((found: { id: string }) => found.id)).toEqual([first.id]);
    expect((await site.admin('GET', '/reports?limit=0')).status).toBe(400);
  });
});
