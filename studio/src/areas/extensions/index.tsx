import type { Area } from '../../area.ts';

// Being built (issue #37): routes and navigation of this area.
export const extensionsArea: Area = { name: 'extensions', routes: [], nav: [] };
