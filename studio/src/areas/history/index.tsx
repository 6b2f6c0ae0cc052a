// Item history (reached from the item editor, so no navigation entry): revisions with their diffs and
// revert, named versions, and time travel.
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { HistoryPage } from './HistoryPage.tsx';

export const historyRoute = createRoute({ getParentRoute: () => appRoute, path: 'collections/$collection/$id/history', component: HistoryPage });

export const historyArea: Area = { name: 'history', routes: [historyRoute], nav: [] };
