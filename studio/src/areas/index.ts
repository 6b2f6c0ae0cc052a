// Every area of the Studio, in navigation order. An area is a folder with an index exporting an Area.
import type { Area } from '../area.ts';
import { accountArea } from './account/index.tsx';
import { contentArea } from './content/index.tsx';

export const areas: Area[] = [contentArea, accountArea];
