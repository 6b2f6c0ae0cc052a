// The content area: collections, their items (table, filters, sort, paging, search, saved views), and
// the item editor. `/` shows the collections.
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { CollectionsPage } from './CollectionsPage.tsx';
import { EditItemPage, NewItemPage } from './ItemEditor.tsx';
import { ItemsPage } from './ItemsPage.tsx';
import './content.css';

export const contentArea: Area = {
  name: 'content',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: '/', component: CollectionsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'collections', component: CollectionsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'collections/$collection', component: ItemsPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'collections/$collection/new', component: NewItemPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'collections/$collection/$id', component: EditItemPage }),
  ],
  nav: [{ to: '/collections', label: 'Collections', section: 'Content' }],
};
