// Every area of the Studio, in navigation order. An area is a folder with an index exporting an Area.
import type { Area } from '../area.ts';
import { accountArea } from './account/index.tsx';
import { adminArea } from './admin/index.tsx';
import { complianceArea } from './compliance/index.tsx';
import { contentArea } from './content/index.tsx';
import { extensionsArea } from './extensions/index.tsx';
import { filesArea } from './files/index.tsx';
import { historyArea } from './history/index.tsx';
import { insightsArea } from './insights/index.tsx';
import { releasesArea } from './releases/index.tsx';
import { reviewArea } from './review/index.tsx';

export const areas: Area[] = [contentArea, historyArea, reviewArea, releasesArea, filesArea, insightsArea, adminArea, complianceArea, extensionsArea, accountArea];
