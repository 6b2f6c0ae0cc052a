// The shapes of the pages routes: what they take (the slug, title and layout rules are the
// domain's, domain/delivery/page.ts) and what they answer.
import { z } from 'zod';
import { layoutConfigSchema, pageSlugSchema, pageTitleSchema, type LayoutConfig } from '../../../domain/delivery/page.ts';
import { pageQuery } from '../../server/routeKit.ts';

/** A page as the routes answer it. */
export const pageSchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  layoutConfig: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export interface PageView {
  id: string;
  slug: string;
  title: string;
  layoutConfig: LayoutConfig | null;
  createdAt: string;
  updatedAt: string;
}

const pageFields = { slug: pageSlugSchema, title: pageTitleSchema, layoutConfig: layoutConfigSchema.nullable() };
/** A create names the slug and the title; the layout is optional (null: none). */
export const createPageBody = z.object({ ...pageFields, layoutConfig: pageFields.layoutConfig.optional() }).strict();
export type CreatePageBody = z.infer<typeof createPageBody>;
/** A PATCH names any of them; layoutConfig null removes the layout. */
export const updatePageBody = z.object(pageFields).partial().strict();
export type UpdatePageBody = z.infer<typeof updatePageBody>;

export const PAGE_SORTS = ['-createdAt', 'slug'] as const;
export type PageSort = (typeof PAGE_SORTS)[number];
export const listPagesQuery = pageQuery.extend({
  sort: z.enum(PAGE_SORTS).default('-createdAt'),
});
export type ListPagesQuery = z.infer<typeof listPagesQuery>;
