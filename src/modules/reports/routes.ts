// /reports (site administrators): request a compliance report, follow its progress, list the site's
// reports, download the file once completed, and read its signed manifest (docs/compliance-reports.md).
import { text } from 'node:stream/consumers';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { forSite } from '../../../infra/storage/objectStorage.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { findReport, listReports, reportObjectKeys } from './queries.ts';
import type { ReportsRuntime } from './reportsRuntime.ts';
import { reportSchema, requestReportBody, signedManifestSchema, type ReportView, type SignedManifest } from './schemas.ts';

const tags = ['reports'];
const idParams = z.object({ id: z.string() });
const CONTENT_TYPES = { json: 'application/json; charset=utf-8', csv: 'text/csv; charset=utf-8' } as const;

export async function reportsRoutes(app: FastifyInstance, { context }: ServerDeps, runtime: ReportsRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  /** The site's completed report, or 404 (another site's, or none) and 409 (not completed yet). */
  async function completedReport(siteId: string, id: string): Promise<ReportView> {
    const report = await context.database.withSite(siteId, (tx) => findReport(tx, siteId, uuidOr404(id, 'Report')));
    if (!report) throw errors.notFound('Report not found');
    if (report.status !== 'completed') throw new AppError('CONFLICT', `The report is ${report.status}: its file and signature exist once it is completed`, { path: ['params', 'id'] });
    return report;
  }

  api.post(
    '/reports/compliance',
    { config: SITE_ADMIN, schema: { tags, body: requestReportBody, response: { 202: z.object({ data: reportSchema }) } } },
    async (request, reply) => reply.status(202).send({ data: await context.commands.run<ReportView>('reports.request', request.body, commandCaller(request)) }),
  );

  api.get(
    '/reports',
    { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(reportSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listReports(tx, request.siteId, request.query));
      return { data: result.reports, meta: pageMeta(result.total, request.query) };
    },
  );

  api.get('/reports/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: reportSchema }) } } }, async (request) => {
    const report = await context.database.withSite(request.siteId, (tx) => findReport(tx, request.siteId, uuidOr404(request.params.id, 'Report')));
    if (!report) throw errors.notFound('Report not found');
    return { data: report };
  });

  api.get('/reports/:id/download', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    const report = await completedReport(request.siteId, request.params.id);
    const { format } = report.params;
    const stored = await forSite(runtime.storage, request.siteId).get(reportObjectKeys(report.id, format).file);
    if (!stored) throw errors.notFound('The report’s file is no longer stored');
    return reply
      .headers({
        'content-type': CONTENT_TYPES[format],
        'content-length': String(stored.size),
        'content-disposition': `attachment; filename="compliance-report-${report.id}.${format}"`,
        'cache-control': 'private, no-store',
      })
      .send(stored.stream);
  });

  api.get('/reports/:id/signature', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: signedManifestSchema }) } } }, async (request) => {
    const report = await completedReport(request.siteId, request.params.id);
    const stored = await forSite(runtime.storage, request.siteId).get(reportObjectKeys(report.id, report.params.format).manifest);
    if (!stored) throw errors.notFound('The report’s manifest is no longer stored');
    return { data: JSON.parse(await text(stored.stream)) as SignedManifest };
  });
}
