// Releases: named sets of items published together, now or on a schedule within maintenance windows,
// previewed before and reverted after (docs/publishing.md). Site administrators' resources.
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { ReleaseDetailPage } from './ReleaseDetailPage.tsx';
import { ReleasesPage } from './ReleasesPage.tsx';

export const releasesArea: Area = {
  name: 'releases',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: 'releases', component: ReleasesPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'releases/$id', component: ReleaseDetailPage }),
  ],
  nav: [{ to: '/releases', label: 'Releases', section: 'Workflow', adminOnly: true }],
};
