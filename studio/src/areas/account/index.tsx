import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { AccountPage } from './AccountPage.tsx';

export const accountArea: Area = {
  name: 'account',
  routes: [createRoute({ getParentRoute: () => appRoute, path: 'account', component: AccountPage })],
  nav: [{ to: '/account', label: 'Your account', section: 'Account' }],
};
