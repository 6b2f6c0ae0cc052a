// The insights API (docs/insights.md) as the Studio uses it: dashboards, their panels, and a panel's
// answer. Requests go through the SDK client's own pipeline (site, token, refresh, error envelope).

export interface PanelQuery {
  source?: 'items' | 'audit';
  collection?: string;
  aggregate: 'count' | 'sum' | 'avg' | 'min' | 'max';
  field?: string;
  groupBy?: string[];
  filter?: Record<string, unknown>;
  dateRange?: { field: string; from?: string; to?: string; last?: string };
  bucket?: 'hour' | 'day' | 'week' | 'month' | 'year';
  limit?: number;
}

export const PANEL_TYPES = ['metric', 'bar', 'line', 'pie', 'table', 'list'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

export interface Panel {
  id: string;
  dashboardId: string;
  name: string;
  type: PanelType;
  position: { x: number; y: number; width: number; height: number };
  query: PanelQuery;
  options: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export interface Dashboard {
  id: string;
  name: string;
  icon: string | null;
  color: string | null;
  note: string | null;
  panelCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface DashboardDetail extends Dashboard {
  panels: Panel[];
}

export interface PanelAnswer {
  data: Record<string, unknown>[];
  meta: { executedAt: string; rowCount: number; durationMs: number; cached: boolean };
}

export const insightsKeys = {
  dashboards: ['insights', 'dashboards'] as const,
  dashboard: (id: string) => ['insights', 'dashboard', id] as const,
  panelData: (dashboardId: string, panelId: string, updatedAt: string) => ['insights', 'panel-data', dashboardId, panelId, updatedAt] as const,
};
