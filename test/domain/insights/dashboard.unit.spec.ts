// The dashboard decider, given events / when command / then events: a dashboard and the panels in its stream.
import { describe, it } from 'vitest';
import { dashboardDecider, MAX_PANELS_PER_DASHBOARD, type PanelContent } from '../../../domain/insights/dashboard.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(dashboardDecider);
const dashboardId = '0190d6a0-0000-7000-8000-000000000001';
const panelId = '0190d6a0-0000-7000-8000-0000000000p1';
const otherPanel = '0190d6a0-0000-7000-8000-0000000000p2';
const dashboard = { name: 'Editorial', icon: null, color: '#369', note: null };
const panel: PanelContent = {
  name: 'Articles per day',
  type: 'line',
  position: { x: 0, y: 0, width: 6, height: 4 },
  query: { collection: 'articles', aggregate: 'count' },
  options: null,
};
const created = { type: 'dashboard.created', data: { dashboardId, dashboard } };
const added = { type: 'dashboard.panel_added', data: { dashboardId, panelId, panel } };
const deleted = { type: 'dashboard.deleted', data: { dashboardId, panelIds: [] } };

describe('dashboard decider', () => {
  it('creates a dashboard once', () => {
    spec.given([]).when({ type: 'createDashboard', dashboardId, dashboard }).then([created as never]);
    spec.given([created]).when({ type: 'createDashboard', dashboardId, dashboard }).thenThrows('CONFLICT', 409);
  });

  it('records a change with the keys that changed, and nothing for no change', () => {
    spec
      .given([created])
      .when({ type: 'updateDashboard', dashboard: { ...dashboard, name: 'Desk', note: 'Daily' } })
      .then([{ type: 'dashboard.updated', data: { dashboardId, dashboard: { ...dashboard, name: 'Desk', note: 'Daily' }, changed: ['name', 'note'] } }]);
    spec.given([created]).when({ type: 'updateDashboard', dashboard }).thenNothing();
  });

  it('deletes a dashboard with its panels named in the event', () => {
    spec
      .given([created, added])
      .when({ type: 'deleteDashboard' })
      .then([{ type: 'dashboard.deleted', data: { dashboardId, panelIds: [panelId] } }]);
  });

  it('refuses every command on a dashboard that does not exist or was deleted', () => {
    for (const history of [[], [created, deleted]]) {
      spec.given(history).when({ type: 'updateDashboard', dashboard }).thenThrows('NOT_FOUND', 404);
      spec.given(history).when({ type: 'deleteDashboard' }).thenThrows('NOT_FOUND', 404);
      spec.given(history).when({ type: 'addPanel', panelId, panel }).thenThrows('NOT_FOUND', 404);
      spec.given(history).when({ type: 'removePanel', panelId }).thenThrows('NOT_FOUND', 404);
    }
  });

  it('adds, changes and removes panels of its own only', () => {
    spec.given([created]).when({ type: 'addPanel', panelId, panel }).then([added as never]);
    spec.given([created, added]).when({ type: 'addPanel', panelId, panel }).thenThrows('CONFLICT', 409);
    spec
      .given([created, added])
      .when({ type: 'updatePanel', panelId, panel: { ...panel, type: 'bar' } })
      .then([{ type: 'dashboard.panel_updated', data: { dashboardId, panelId, panel: { ...panel, type: 'bar' }, changed: ['type'] } }]);
    spec.given([created, added]).when({ type: 'updatePanel', panelId, panel }).thenNothing();
    spec.given([created, added]).when({ type: 'updatePanel', panelId: otherPanel, panel }).thenThrows('NOT_FOUND', 404);
    spec.given([created, added]).when({ type: 'removePanel', panelId: otherPanel }).thenThrows('NOT_FOUND', 404);
    spec.given([created, added]).when({ type: 'removePanel', panelId }).then([{ type: 'dashboard.panel_removed', data: { dashboardId, panelId } }]);
    const removed = { type: 'dashboard.panel_removed', data: { dashboardId, panelId } };
    spec.given([created, added, removed]).when({ type: 'updatePanel', panelId, panel }).thenThrows('NOT_FOUND', 404);
  });

  it(`holds at most ${MAX_PANELS_PER_DASHBOARD} panels`, () => {
    const full = Array.from({ length: MAX_PANELS_PER_DASHBOARD }, (_, index) => ({ type: 'dashboard.panel_added', data: { dashboardId, panelId: `p${index}`, panel } }));
    spec.given([created, ...full]).when({ type: 'addPanel', panelId, panel }).thenThrows('VALIDATION_FAILED', 400, ['body']);
  });
});
