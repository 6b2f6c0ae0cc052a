// A dashboard (stream `<siteId>/dashboard/<id>`) with its panels. Commands carry the whole content
// after the change (the handler merged a PATCH and checked the panel's query); the decider keeps
// what exists, refuses what does not, and bounds the panels of one dashboard.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type DashboardContent, type DashboardEvent, dashboardEventSchemas, type PanelContent } from './events.ts';

export type { DashboardContent, DashboardEvent, PanelContent };

/** Panels one dashboard may hold. */
export const MAX_PANELS_PER_DASHBOARD = 100;

export type DashboardCommand =
  | { type: 'createDashboard'; dashboardId: string; dashboard: DashboardContent }
  | { type: 'updateDashboard'; dashboard: DashboardContent }
  | { type: 'deleteDashboard' }
  | { type: 'addPanel'; panelId: string; panel: PanelContent }
  | { type: 'updatePanel'; panelId: string; panel: PanelContent }
  | { type: 'removePanel'; panelId: string };

export interface DashboardState {
  status: 'absent' | 'present' | 'deleted';
  dashboardId: string | null;
  dashboard: DashboardContent | null;
  /** The dashboard's panels by id, in the order they were added. */
  panels: ReadonlyMap<string, PanelContent>;
}

function changedKeys<Content extends object>(before: Content, after: Content): string[] {
  return (Object.keys(after) as (keyof Content)[])
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map(String)
    .sort();
}

const withPanel = (panels: ReadonlyMap<string, PanelContent>, panelId: string, panel: PanelContent | null) => {
  const next = new Map(panels);
  if (panel) next.set(panelId, panel);
  else next.delete(panelId);
  return next;
};

const dashboardNotFound = () => new AppError('NOT_FOUND', 'Dashboard not found');
const panelNotFound = () => new AppError('NOT_FOUND', 'Panel not found');

export const dashboardDecider: Decider<DashboardState, DashboardCommand, DashboardEvent> = {
  eventTypes: eventTypesOf(dashboardEventSchemas),
  initialState: () => ({ status: 'absent', dashboardId: null, dashboard: null, panels: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'dashboard.created':
        return { ...state, status: 'present', dashboardId: event.data.dashboardId, dashboard: event.data.dashboard };
      case 'dashboard.updated':
        return { ...state, dashboard: event.data.dashboard };
      case 'dashboard.deleted':
        return { ...state, status: 'deleted', panels: new Map() };
      case 'dashboard.panel_added':
      case 'dashboard.panel_updated':
        return { ...state, panels: withPanel(state.panels, event.data.panelId, event.data.panel) };
      case 'dashboard.panel_removed':
        return { ...state, panels: withPanel(state.panels, event.data.panelId, null) };
    }
  },
  decide(command, state) {
    if (command.type === 'createDashboard') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The dashboard already exists');
      return [{ type: 'dashboard.created', data: { dashboardId: command.dashboardId, dashboard: command.dashboard } }];
    }
    if (state.status !== 'present') throw dashboardNotFound();
    const dashboardId = state.dashboardId!;
    switch (command.type) {
      case 'updateDashboard': {
        const changed = changedKeys(state.dashboard!, command.dashboard);
        return changed.length === 0 ? [] : [{ type: 'dashboard.updated', data: { dashboardId, dashboard: command.dashboard, changed } }];
      }
      case 'deleteDashboard':
        return [{ type: 'dashboard.deleted', data: { dashboardId, panelIds: [...state.panels.keys()] } }];
      case 'addPanel':
        if (state.panels.has(command.panelId)) throw new AppError('CONFLICT', 'The panel already exists');
        if (state.panels.size >= MAX_PANELS_PER_DASHBOARD) {
          throw new AppError('VALIDATION_FAILED', `A dashboard holds at most ${MAX_PANELS_PER_DASHBOARD} panels`, { path: ['body'] });
        }
        return [{ type: 'dashboard.panel_added', data: { dashboardId, panelId: command.panelId, panel: command.panel } }];
      case 'updatePanel': {
        const before = state.panels.get(command.panelId);
        if (!before) throw panelNotFound();
        const changed = changedKeys(before, command.panel);
        return changed.length === 0 ? [] : [{ type: 'dashboard.panel_updated', data: { dashboardId, panelId: command.panelId, panel: command.panel, changed } }];
      }
      case 'removePanel':
        if (!state.panels.has(command.panelId)) throw panelNotFound();
        return [{ type: 'dashboard.panel_removed', data: { dashboardId, panelId: command.panelId } }];
    }
  },
};
