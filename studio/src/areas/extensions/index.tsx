// Extensions (issue #37, job 12): the administrators' page of signed bundles, and the extension panels
// the UI manifest declares, each drawn in a sandboxed frame.
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { ExtensionPanelPage, ExtensionPanelsPage } from './ExtensionPanelsPage.tsx';
import { ExtensionsPage } from './ExtensionsPage.tsx';
import './extensions.css';

export const extensionsArea: Area = {
  name: 'extensions',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: 'extensions', component: ExtensionsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'extension-panels', component: ExtensionPanelsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'extension-panels/$extensionId/$panelId', component: ExtensionPanelPage }),
  ],
  nav: [
    { to: '/extensions', label: 'Extensions', section: 'Administration', adminOnly: true },
    { to: '/extension-panels', label: 'Extension panels', section: 'Insights', adminOnly: true },
  ],
};
