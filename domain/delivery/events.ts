// Events of the delivery context: a page of the page builder (a slug, a title and the layout the
// delivery route hydrates). The layout's shape is checked when it is written (page.ts), not here:
// the log keeps what was accepted then, whatever the rules become.
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

export const pageChangesSchema = z.object({
  slug: z.string().optional(),
  title: z.string().optional(),
  /** null: the page has no layout any more. */
  layoutConfig: contentObjectSchema.nullable().optional(),
});
export type PageChanges = z.infer<typeof pageChangesSchema>;

export const pageEventSchemas = {
  'page.created': z.object({ pageId: z.string(), slug: z.string(), title: z.string(), layoutConfig: contentObjectSchema.nullable() }),
  'page.updated': z.object({ pageId: z.string(), changes: pageChangesSchema }),
  /** `slug`: the one the page had, so a reader of the log alone knows which address went away. */
  'page.deleted': z.object({ pageId: z.string(), slug: z.string() }),
};
export type PageEvent = EventOf<typeof pageEventSchemas>;
