// Shapes several catalogue files share: body-less answers, ids, the item, paged lists.
import { z } from 'zod';
import { componentRef } from '../components.ts';
import type { SuccessResponse } from '../operationEntry.ts';

export const noContent = (description: string): SuccessResponse => ({ status: 204, description });
export const item = componentRef('Item');
/** The item inside a zod shape (a reference to the Item component). */
export const itemField = z.unknown().meta({ $ref: '#/components/schemas/Item' });
export const pageMeta = componentRef('PageMeta');
export const itemListMeta = componentRef('ItemListMeta');
/** An object whose keys the site defines (settings, preferences, layouts). */
export const openObject = z.record(z.string(), z.unknown());
export const timestamp = z.string().describe('ISO 8601');
export const nullableTimestamp = z.string().nullable().describe('ISO 8601, or null');
