// The insights area's commands (the command registry, docs/architecture.md): dashboards (create,
// update, delete with its panels) and their panels (create, update, delete), all for site
// administrators. Reading and running panels are queries (routes.ts).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { addPanel, createDashboard, deleteDashboard, removePanel, updateDashboard, updatePanel } from './handlers.ts';
import { createDashboardBody, createPanelBody, updateDashboardBody, updatePanelBody } from './schemas.ts';

const dashboardIds = { dashboardId: z.string() };
const panelIds = { dashboardId: z.string(), panelId: z.string() };

const create = defineCommand({
  name: 'dashboards.create',
  description: 'Create a dashboard (name, icon, color, note).',
  input: createDashboardBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createDashboard(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'dashboards.update',
  description: "Change a dashboard's name, icon, color or note.",
  input: updateDashboardBody.safeExtend(dashboardIds),
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input: { dashboardId, ...changes }, metadata }) =>
    updateDashboard(context, siteId, uuidOr404(dashboardId, 'Dashboard'), changes, metadata),
});

const deleteCommand = defineCommand({
  name: 'dashboards.delete',
  description: 'Delete a dashboard and its panels.',
  input: z.object(dashboardIds),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteDashboard(context, siteId, uuidOr404(input.dashboardId, 'Dashboard'), metadata),
});

const createPanel = defineCommand({
  name: 'dashboards.createPanel',
  description: 'Add a panel to a dashboard: a name, a type, a position and a whitelisted aggregate query.',
  input: createPanelBody.safeExtend(dashboardIds),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { input: { dashboardId, ...panel }, metadata, access }) {
    return addPanel(context, await access(), uuidOr404(dashboardId, 'Dashboard'), panel, metadata);
  },
});

const updatePanelCommand = defineCommand({
  name: 'dashboards.updatePanel',
  description: "Change a panel's name, type, position, query (replaced whole) or options.",
  input: updatePanelBody.safeExtend(panelIds),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { input: { dashboardId, panelId, ...changes }, metadata, access }) {
    return updatePanel(context, await access(), uuidOr404(dashboardId, 'Dashboard'), uuidOr404(panelId, 'Panel'), changes, metadata);
  },
});

const deletePanel = defineCommand({
  name: 'dashboards.deletePanel',
  description: 'Remove a panel from its dashboard.',
  input: z.object(panelIds),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) =>
    removePanel(context, siteId, uuidOr404(input.dashboardId, 'Dashboard'), uuidOr404(input.panelId, 'Panel'), metadata),
});

export const insightsCommands = { create, update, delete: deleteCommand, createPanel, updatePanel: updatePanelCommand, deletePanel };
