// Insights (issue #37, job 11): the site's dashboards, their panels' queries and charts.
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { DashboardPage } from './DashboardPage.tsx';
import { DashboardsPage } from './DashboardsPage.tsx';
import './insights.css';

export const insightsArea: Area = {
  name: 'insights',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: 'dashboards', component: DashboardsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'dashboards/$id', component: DashboardPage }),
  ],
  nav: [{ to: '/dashboards', label: 'Dashboards', section: 'Insights' }],
};
