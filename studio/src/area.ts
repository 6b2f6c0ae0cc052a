// What an area of the Studio gives the shell: its routes under the signed-in layout, and its entries in
// the navigation. Areas live in src/areas/<name>/ and are listed in src/areas/index.ts.
import type { AnyRoute } from '@tanstack/react-router';

export interface NavEntry {
  to: string;
  label: string;
  /** The navigation group it appears under. */
  section: 'Content' | 'Workflow' | 'Files' | 'Insights' | 'Administration' | 'Compliance' | 'Account';
  /** Only shown to site administrators (the service refuses the routes to others anyway). */
  adminOnly?: boolean;
}

export interface Area {
  name: string;
  routes: AnyRoute[];
  nav: NavEntry[];
}
