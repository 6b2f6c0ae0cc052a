// Events of insights (docs/insights.md): a dashboard and its panels, one stream per dashboard
// (`<siteId>/dashboard/<id>`). Panels live in their dashboard's stream: a panel exists only inside
// one dashboard, a dashboard's delete removes its panels in the same event, and a panel command
// checks its dashboard and its membership from one fold.
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

export const PANEL_TYPES = ['metric', 'bar', 'line', 'pie', 'table', 'list'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

export const dashboardContentSchema = z.object({
  name: z.string(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  note: z.string().nullable(),
});
export type DashboardContent = z.infer<typeof dashboardContentSchema>;

export const panelPositionSchema = z.object({ x: z.number().int(), y: z.number().int(), width: z.number().int(), height: z.number().int() });
export type PanelPosition = z.infer<typeof panelPositionSchema>;

/** A panel as stored: its query is checked by the area's schema at the edge (src/modules/insights/schemas.ts), kept whole here. */
export const panelContentSchema = z.object({
  name: z.string(),
  type: z.enum(PANEL_TYPES),
  position: panelPositionSchema,
  query: contentObjectSchema,
  options: contentObjectSchema.nullable(),
});
export type PanelContent = z.infer<typeof panelContentSchema>;

export const dashboardEventSchemas = {
  'dashboard.created': z.object({ dashboardId: z.string(), dashboard: dashboardContentSchema }),
  /** The dashboard as it is after the change, and the names of the keys that changed. */
  'dashboard.updated': z.object({ dashboardId: z.string(), dashboard: dashboardContentSchema, changed: z.array(z.string()) }),
  /** The dashboard and, with it, these panels are gone. */
  'dashboard.deleted': z.object({ dashboardId: z.string(), panelIds: z.array(z.string()) }),
  'dashboard.panel_added': z.object({ dashboardId: z.string(), panelId: z.string(), panel: panelContentSchema }),
  'dashboard.panel_updated': z.object({ dashboardId: z.string(), panelId: z.string(), panel: panelContentSchema, changed: z.array(z.string()) }),
  'dashboard.panel_removed': z.object({ dashboardId: z.string(), panelId: z.string() }),
};
export type DashboardEvent = EventOf<typeof dashboardEventSchemas>;

export const insightsEventSchemas = { ...dashboardEventSchemas };
