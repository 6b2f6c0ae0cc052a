// Each site's dashboards and their panels as they are now (docs/insights.md). A panel change also
// touches its dashboard: its panel count and its updatedAt.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

async function upsertPanel(tx: Queryable, event: StoredEvent<'dashboard.panel_added' | 'dashboard.panel_updated'>): Promise<void> {
  const { dashboardId, panelId, panel } = event.data;
  const { x, y, width, height } = panel.position;
  await tx.query(sql`
    INSERT INTO dashboard_panels (site_id, id, dashboard_id, name, type, pos_x, pos_y, width, height, query, options, created_at, updated_at)
    VALUES (${event.siteId}, ${panelId}, ${dashboardId}, ${panel.name}, ${panel.type}, ${x}, ${y}, ${width}, ${height},
            ${JSON.stringify(panel.query)}::jsonb, ${panel.options === null ? null : JSON.stringify(panel.options)}::jsonb, ${event.recordedAt}, ${event.recordedAt})
    ON CONFLICT (site_id, id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type, pos_x = EXCLUDED.pos_x, pos_y = EXCLUDED.pos_y,
           width = EXCLUDED.width, height = EXCLUDED.height, query = EXCLUDED.query, options = EXCLUDED.options, updated_at = EXCLUDED.updated_at`);
}

async function touchDashboard(tx: Queryable, siteId: string, dashboardId: string, recordedAt: Date, panelDelta: number): Promise<void> {
  await tx.query(sql`
    UPDATE dashboards SET panel_count = panel_count + ${panelDelta}::int, updated_at = ${recordedAt}
     WHERE site_id = ${siteId} AND id = ${dashboardId}`);
}

export const dashboardsProjection = defineProjection({
  name: 'dashboards',
  mode: 'inline',
  tables: ['dashboard_panels', 'dashboards'],
  handlers: {
    'dashboard.created': async (tx, event) => {
      const { dashboardId, dashboard } = event.data;
      await tx.query(sql`
        INSERT INTO dashboards (site_id, id, name, icon, color, note, created_at, updated_at)
        VALUES (${event.siteId}, ${dashboardId}, ${dashboard.name}, ${dashboard.icon}, ${dashboard.color}, ${dashboard.note}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'dashboard.updated': async (tx, event) => {
      const { dashboardId, dashboard } = event.data;
      await tx.query(sql`
        UPDATE dashboards SET name = ${dashboard.name}, icon = ${dashboard.icon}, color = ${dashboard.color}, note = ${dashboard.note}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${dashboardId}`);
    },
    'dashboard.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM dashboard_panels WHERE site_id = ${event.siteId} AND dashboard_id = ${event.data.dashboardId}`);
      await tx.query(sql`DELETE FROM dashboards WHERE site_id = ${event.siteId} AND id = ${event.data.dashboardId}`);
    },
    'dashboard.panel_added': async (tx, event) => {
      await upsertPanel(tx, event);
      await touchDashboard(tx, event.siteId, event.data.dashboardId, event.recordedAt, 1);
    },
    'dashboard.panel_updated': async (tx, event) => {
      await upsertPanel(tx, event);
      await touchDashboard(tx, event.siteId, event.data.dashboardId, event.recordedAt, 0);
    },
    'dashboard.panel_removed': async (tx, event) => {
      await tx.query(sql`DELETE FROM dashboard_panels WHERE site_id = ${event.siteId} AND id = ${event.data.panelId}`);
      await touchDashboard(tx, event.siteId, event.data.dashboardId, event.recordedAt, -1);
    },
  },
});
