// Dashboard and panel commands (docs/insights.md). Panels live in their dashboard's stream, so a
// panel command loads the dashboard (a missing dashboard, or a panel of another dashboard, is 404)
// and a dashboard's delete removes its panels in its one event. A panel's query is checked against
// the whitelist of the administrator who saves it (every readable field) before anything is written.
import { randomUUID } from 'node:crypto';
import { dashboardDecider, type DashboardCommand, type DashboardContent, type PanelContent } from '../../../domain/insights/dashboard.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { planPanelQuery } from './panelQuery.ts';
import { findDashboard, findDashboardDetail, findPanel } from './queries.ts';
import type { CreateDashboardBody, CreatePanelBody, DashboardDetail, PanelQueryBody, PanelView, UpdateDashboardBody, UpdatePanelBody } from './schemas.ts';

export const dashboardStream = (siteId: string, dashboardId: string) => streamId(siteId, 'dashboard', dashboardId);

function decideIn(tx: Queryable, context: AppContext, siteId: string, dashboardId: string, command: DashboardCommand, metadata: EventMetadata) {
  return handleCommandIn(tx, context.projections, { siteId, streamId: dashboardStream(siteId, dashboardId), decider: dashboardDecider, command, metadata });
}

/** The query's whitelist and misfits, as its saver may read (INVALID_FIELD, VALIDATION_FAILED at body.query...). */
async function checkQuery(context: AppContext, access: Access, query: PanelQueryBody): Promise<void> {
  planPanelQuery(await context.schemas.site(access.siteId), access, query, new Date());
}

export async function createDashboard(context: AppContext, siteId: string, input: CreateDashboardBody, metadata: EventMetadata): Promise<DashboardDetail> {
  const dashboardId = randomUUID();
  const dashboard: DashboardContent = { name: input.name, icon: input.icon ?? null, color: input.color ?? null, note: input.note ?? null };
  return inSiteTransaction(context, siteId, async (tx) => {
    await decideIn(tx, context, siteId, dashboardId, { type: 'createDashboard', dashboardId, dashboard }, metadata);
    return (await findDashboardDetail(tx, siteId, dashboardId))!;
  });
}

export async function updateDashboard(
  context: AppContext,
  siteId: string,
  dashboardId: string,
  changes: UpdateDashboardBody,
  metadata: EventMetadata,
): Promise<DashboardDetail> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findDashboard(tx, siteId, dashboardId);
    if (!current) throw errors.notFound('Dashboard not found');
    const dashboard: DashboardContent = {
      name: changes.name ?? current.name,
      icon: changes.icon !== undefined ? changes.icon : current.icon,
      color: changes.color !== undefined ? changes.color : current.color,
      note: changes.note !== undefined ? changes.note : current.note,
    };
    await decideIn(tx, context, siteId, dashboardId, { type: 'updateDashboard', dashboard }, metadata);
    return (await findDashboardDetail(tx, siteId, dashboardId))!;
  });
}

export async function deleteDashboard(context: AppContext, siteId: string, dashboardId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, (tx) => decideIn(tx, context, siteId, dashboardId, { type: 'deleteDashboard' }, metadata));
}

export async function addPanel(
  context: AppContext,
  access: Access,
  dashboardId: string,
  input: CreatePanelBody,
  metadata: EventMetadata,
): Promise<PanelView> {
  await checkQuery(context, access, input.query);
  const { siteId } = access;
  const panelId = randomUUID();
  const panel: PanelContent = { name: input.name, type: input.type, position: input.position, query: input.query, options: input.options ?? null };
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findDashboard(tx, siteId, dashboardId))) throw errors.notFound('Dashboard not found');
    await decideIn(tx, context, siteId, dashboardId, { type: 'addPanel', panelId, panel }, metadata);
    return (await findPanel(tx, siteId, dashboardId, panelId))!;
  });
}

export async function updatePanel(
  context: AppContext,
  access: Access,
  dashboardId: string,
  panelId: string,
  changes: UpdatePanelBody,
  metadata: EventMetadata,
): Promise<PanelView> {
  if (changes.query) await checkQuery(context, access, changes.query);
  const { siteId } = access;
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findPanel(tx, siteId, dashboardId, panelId);
    if (!current) throw errors.notFound('Panel not found');
    const panel: PanelContent = {
      name: changes.name ?? current.name,
      type: changes.type ?? current.type,
      position: changes.position ?? current.position,
      query: changes.query ?? current.query,
      options: changes.options !== undefined ? changes.options : current.options,
    };
    await decideIn(tx, context, siteId, dashboardId, { type: 'updatePanel', panelId, panel }, metadata);
    return (await findPanel(tx, siteId, dashboardId, panelId))!;
  });
}

export async function removePanel(context: AppContext, siteId: string, dashboardId: string, panelId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findPanel(tx, siteId, dashboardId, panelId))) throw errors.notFound('Panel not found');
    await decideIn(tx, context, siteId, dashboardId, { type: 'removePanel', panelId }, metadata);
  });
}
