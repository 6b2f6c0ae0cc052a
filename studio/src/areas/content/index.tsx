import { createRoute, redirect } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';

export const contentArea: Area = {
  name: 'content',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: '/', beforeLoad: () => { throw redirect({ to: '/account' }); } }),
  ],
  nav: [],
};
