import type { Area } from '../../area.ts';

// Being built (issue #37): routes and navigation of this area.
export const historyArea: Area = { name: 'history', routes: [], nav: [] };
