import type { Area } from '../../area.ts';

// Being built (issue #37): routes and navigation of this area.
export const reviewArea: Area = { name: 'review', routes: [], nav: [] };
