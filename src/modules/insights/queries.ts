// Reads of dashboards and their panels (the dashboards read model), shaped for the answers.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PanelType } from '../../../domain/insights/events.ts';
import type { DashboardDetail, DashboardView, PanelView } from './schemas.ts';

interface DashboardRow {
  id: string;
  name: string;
  icon: string | null;
  color: string | null;
  note: string | null;
  panel_count: number;
  created_at: Date;
  updated_at: Date;
}

interface PanelRow {
  id: string;
  dashboard_id: string;
  name: string;
  type: PanelType;
  pos_x: number;
  pos_y: number;
  width: number;
  height: number;
  query: Record<string, unknown>;
  options: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const dashboardOf = (row: DashboardRow): DashboardView => ({
  id: row.id,
  name: row.name,
  icon: row.icon,
  color: row.color,
  note: row.note,
  panelCount: row.panel_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const panelOf = (row: PanelRow): PanelView => ({
  id: row.id,
  dashboardId: row.dashboard_id,
  name: row.name,
  type: row.type,
  position: { x: row.pos_x, y: row.pos_y, width: row.width, height: row.height },
  query: row.query,
  options: row.options,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A page of the site's dashboards by name (dashboards_list). */
export async function listDashboards(tx: Queryable, siteId: string, page: { limit: number; page: number }): Promise<{ dashboards: DashboardView[]; total: number }> {
  const rows = await tx.query<DashboardRow>(sql`
    SELECT * FROM dashboards WHERE site_id = ${siteId}
     ORDER BY lower(name), id LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM dashboards WHERE site_id = ${siteId}`);
  return { dashboards: rows.map(dashboardOf), total: count?.total ?? 0 };
}

export async function findDashboard(tx: Queryable, siteId: string, dashboardId: string): Promise<DashboardView | null> {
  const [row] = await tx.query<DashboardRow>(sql`SELECT * FROM dashboards WHERE site_id = ${siteId} AND id = ${dashboardId}`);
  return row ? dashboardOf(row) : null;
}

/** A dashboard with its panels (by position: top to bottom, left to right), or null. */
export async function findDashboardDetail(tx: Queryable, siteId: string, dashboardId: string): Promise<DashboardDetail | null> {
  const dashboard = await findDashboard(tx, siteId, dashboardId);
  return dashboard ? { ...dashboard, panels: await listPanels(tx, siteId, dashboardId) } : null;
}

/** The dashboard's panels by position (dashboard_panels_list); at most MAX_PANELS_PER_DASHBOARD exist. */
export async function listPanels(tx: Queryable, siteId: string, dashboardId: string): Promise<PanelView[]> {
  const rows = await tx.query<PanelRow>(sql`
    SELECT * FROM dashboard_panels WHERE site_id = ${siteId} AND dashboard_id = ${dashboardId}
     ORDER BY pos_y, pos_x, id`);
  return rows.map(panelOf);
}

/** A panel of this dashboard; null when it does not exist or belongs to another dashboard (or site). */
export async function findPanel(tx: Queryable, siteId: string, dashboardId: string, panelId: string): Promise<PanelView | null> {
  const [row] = await tx.query<PanelRow>(sql`
    SELECT * FROM dashboard_panels WHERE site_id = ${siteId} AND id = ${panelId} AND dashboard_id = ${dashboardId}`);
  return row ? panelOf(row) : null;
}
