import type { Area } from '../../area.ts';

// Being built (issue #37): routes and navigation of this area.
export const adminArea: Area = { name: 'admin', routes: [], nav: [] };
