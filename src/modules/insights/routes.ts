// /dashboards (docs/insights.md): dashboards and their panels. Any member of the site (level `user`)
// reads them and runs panels with their own read permissions; site administrators change them.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import { insightsCommands } from './commands.ts';
import type { InsightsRuntime } from './insightsRuntime.ts';
import { answerPanelQuery } from './panelData.ts';
import { findDashboard, findDashboardDetail, findPanel, listDashboards, listPanels } from './queries.ts';
import {
  createDashboardBody,
  createPanelBody,
  dashboardDetailSchema,
  dashboardSchema,
  panelDataSchema,
  panelQuerySchema,
  panelSchema,
  previewBody,
  updateDashboardBody,
  updatePanelBody,
} from './schemas.ts';

const tags = ['insights'];
const MEMBER = { site: 'required', access: 'user' } as const;
const dashboardParams = z.object({ id: z.string() });
const panelParams = z.object({ id: z.string(), panelId: z.string() });
const dashboardAnswer = z.object({ data: dashboardDetailSchema });
const panelAnswer = z.object({ data: panelSchema });

export async function insightsRoutes(app: FastifyInstance, { context }: ServerDeps, insights: InsightsRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  // Dashboards
  api.get(
    '/dashboards',
    { config: MEMBER, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(dashboardSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { dashboards, total } = await context.database.withSiteReads(request.siteId, (tx) => listDashboards(tx, request.siteId, request.query));
      return { data: dashboards, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/dashboards', { config: SITE_ADMIN, schema: { tags, body: createDashboardBody, response: { 201: dashboardAnswer } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(insightsCommands.create, request.body, commandCaller(request)) }),
  );
  api.get('/dashboards/:id', { config: MEMBER, schema: { tags, params: dashboardParams, response: { 200: dashboardAnswer } } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Dashboard');
    const dashboard = await context.database.withSiteReads(request.siteId, (tx) => findDashboardDetail(tx, request.siteId, id));
    if (!dashboard) throw errors.notFound('Dashboard not found');
    return { data: dashboard };
  });
  api.patch(
    '/dashboards/:id',
    { config: SITE_ADMIN, schema: { tags, params: dashboardParams, body: updateDashboardBody, response: { 200: dashboardAnswer } } },
    async (request) => ({
      data: await context.commands.runValidated(insightsCommands.update, { ...request.body, dashboardId: request.params.id }, commandCaller(request)),
    }),
  );
  api.delete('/dashboards/:id', { config: SITE_ADMIN, schema: { tags, params: dashboardParams } }, async (request, reply) => {
    await context.commands.runValidated(insightsCommands.delete, { dashboardId: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  // Panels
  api.get(
    '/dashboards/:id/panels',
    { config: MEMBER, schema: { tags, params: dashboardParams, response: { 200: z.object({ data: z.array(panelSchema) }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Dashboard');
      const panels = await context.database.withSiteReads(request.siteId, async (tx) => {
        if (!(await findDashboard(tx, request.siteId, id))) throw errors.notFound('Dashboard not found');
        return listPanels(tx, request.siteId, id);
      });
      return { data: panels };
    },
  );
  api.post(
    '/dashboards/:id/panels',
    { config: SITE_ADMIN, schema: { tags, params: dashboardParams, body: createPanelBody, response: { 201: panelAnswer } } },
    async (request, reply) => {
      const input = { ...request.body, dashboardId: request.params.id };
      return reply.status(201).send({ data: await context.commands.runValidated(insightsCommands.createPanel, input, commandCaller(request)) });
    },
  );
  api.post(
    '/dashboards/:id/panels/preview',
    { config: MEMBER, schema: { tags, params: dashboardParams, body: previewBody, response: { 200: panelDataSchema } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Dashboard');
      const found = await context.database.withSiteReads(request.siteId, (tx) => findDashboard(tx, request.siteId, id));
      if (!found) throw errors.notFound('Dashboard not found');
      return answerPanelQuery(context, insights.cache, await request.access(), request.body.query, request.metadata, ['body', 'query']);
    },
  );
  api.patch(
    '/dashboards/:id/panels/:panelId',
    { config: SITE_ADMIN, schema: { tags, params: panelParams, body: updatePanelBody, response: { 200: panelAnswer } } },
    async (request) => {
      const input = { ...request.body, dashboardId: request.params.id, panelId: request.params.panelId };
      return { data: await context.commands.runValidated(insightsCommands.updatePanel, input, commandCaller(request)) };
    },
  );
  api.delete('/dashboards/:id/panels/:panelId', { config: SITE_ADMIN, schema: { tags, params: panelParams } }, async (request, reply) => {
    await context.commands.runValidated(insightsCommands.deletePanel, { dashboardId: request.params.id, panelId: request.params.panelId }, commandCaller(request));
    return reply.status(204).send();
  });
  api.post(
    '/dashboards/:id/panels/:panelId/data',
    { config: MEMBER, schema: { tags, params: panelParams, response: { 200: panelDataSchema } } },
    async (request) => {
      const dashboardId = uuidOr404(request.params.id, 'Dashboard');
      const panelId = uuidOr404(request.params.panelId, 'Panel');
      const panel = await context.database.withSiteReads(request.siteId, (tx) => findPanel(tx, request.siteId, dashboardId, panelId));
      if (!panel) throw errors.notFound('Panel not found');
      // Checked when it was saved; checked again, as the schema moves on.
      const query = panelQuerySchema.safeParse(panel.query);
      if (!query.success) throw new AppError('VALIDATION_FAILED', `The panel's query no longer holds: ${query.error.issues[0]?.message}`, { path: ['panel', 'query'] });
      return answerPanelQuery(context, insights.cache, await request.access(), query.data, request.metadata, ['panel', 'query']);
    },
  );
}
