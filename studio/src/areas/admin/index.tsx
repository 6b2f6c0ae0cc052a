// Administration: the content model (collections, fields, relations), access (roles, policies and
// their rules, users, API keys), the site's settings and its config manifest. Site administrators only.
import { createRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { ApiKeysPage } from './ApiKeysPage.tsx';
import { CollectionPage } from './CollectionPage.tsx';
import { CollectionsPage } from './CollectionsPage.tsx';
import { ConfigPage } from './ConfigPage.tsx';
import { PoliciesPage } from './PoliciesPage.tsx';
import { PolicyPage } from './PolicyPage.tsx';
import { RolesPage } from './RolesPage.tsx';
import { SettingsPage } from './SettingsPage.tsx';
import { UsersPage } from './UsersPage.tsx';

const route = (path: string, component: () => ReactNode) => createRoute({ getParentRoute: () => appRoute, path, component });

export const adminArea: Area = {
  name: 'admin',
  routes: [
    route('admin/collections', CollectionsPage),
    route('admin/collections/$name', CollectionPage),
    route('admin/roles', RolesPage),
    route('admin/policies', PoliciesPage),
    route('admin/policies/$id', PolicyPage),
    route('admin/users', UsersPage),
    route('admin/api-keys', ApiKeysPage),
    route('admin/settings', SettingsPage),
    route('admin/config', ConfigPage),
  ],
  nav: [
    { to: '/admin/collections', label: 'Data model', section: 'Administration', adminOnly: true },
    { to: '/admin/roles', label: 'Roles', section: 'Administration', adminOnly: true },
    { to: '/admin/policies', label: 'Policies', section: 'Administration', adminOnly: true },
    { to: '/admin/users', label: 'Users', section: 'Administration', adminOnly: true },
    { to: '/admin/api-keys', label: 'API keys', section: 'Administration', adminOnly: true },
    { to: '/admin/settings', label: 'Settings', section: 'Administration', adminOnly: true },
    { to: '/admin/config', label: 'Config manifest', section: 'Administration', adminOnly: true },
  ],
};
