// The files area: the library (/files: folders, tags, uploads with progress) and a file's detail
// (/files/$id: its record, tags, image transforms and presets previewed, deletion).
import { createRoute } from '@tanstack/react-router';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { FileDetailPage } from './FileDetailPage.tsx';
import { FilesPage } from './FilesPage.tsx';

export const filesArea: Area = {
  name: 'files',
  routes: [
    createRoute({ getParentRoute: () => appRoute, path: 'files', component: FilesPage }),
    createRoute({ getParentRoute: () => appRoute, path: 'files/$id', component: FileDetailPage }),
  ],
  nav: [{ to: '/files', label: 'Files', section: 'Files' }],
};
