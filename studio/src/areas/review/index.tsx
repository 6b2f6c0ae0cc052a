// Editorial review: the queue of items awaiting review, and one item's review (submit, approve, reject).
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { ItemReviewPage } from './ItemReviewPage.tsx';
import { ReviewQueuePage } from './ReviewQueuePage.tsx';

export const reviewArea: Area = {
  name: 'review',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: 'review', component: ReviewQueuePage }),
    createRoute({ getParentRoute: () => appRoute, path: 'collections/$collection/$id/review', component: ItemReviewPage }),
  ],
  nav: [{ to: '/review', label: 'Review queue', section: 'Workflow' }],
};
