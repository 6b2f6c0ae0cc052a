// A page of the page builder: its input rules (the slug, the title, the layout and the items its
// blocks reference) and its decider. A slug is one page's per site: the handler checks that under a
// lock (src/modules/pages/handlers.ts), as it needs the read model.
import { z } from 'zod';
import { collectionName } from '../content/schemaInput.ts';
import { ITEM_ID_PATTERN } from '../content/itemInput.ts';
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type PageChanges, type PageEvent, pageEventSchemas } from './events.ts';

export type { PageChanges, PageEvent };

export const PAGE_SLUG_PATTERN = /^[a-z0-9]+(?:[/_-][a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 200;

export const pageSlugSchema = z
  .string()
  .max(MAX_SLUG_LENGTH, `A slug is at most ${MAX_SLUG_LENGTH} characters`)
  .regex(PAGE_SLUG_PATTERN, 'A slug is lowercase letters and digits, in parts joined by one "/", "_" or "-"');
export const pageTitleSchema = z.string().trim().min(1, 'A title is required').max(500);

/** What a layout may hold: its size as JSON, its blocks, its nesting, and what one block may read. */
export const LAYOUT_LIMITS = { bytes: 64 * 1024, blocks: 50, depth: 32, listLimit: 200, fields: 100, sortTerms: 10 } as const;

const BLOCK_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
// The syntax of the list query's `fields` and `sort` (src/query/parseListQuery.ts), checked here
// without the collection's fields: `title`, `author.name`, `*`, `author.*`, `blocks.item:headings.title`.
const FIELD_PATH_PATTERN = /^(\*|[A-Za-z0-9_]+(:[A-Za-z0-9_]+)?(\.[A-Za-z0-9_]+(:[A-Za-z0-9_]+)?)*(\.\*)?)$/;
const SORT_TERM_PATTERN = /^-?[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/** The keys that read items; the others of a block are the front end's, kept as they are. */
const READING_KEYS = ['id', 'filter', 'fields', 'sort', 'limit'] as const;
const LIST_KEYS = ['filter', 'sort', 'limit'] as const;

/**
 * One block of a layout. A block with a `collection` reads items: one by `id`, or else a list
 * (`filter`, `sort`, `limit`); `fields` picks what is read of them (absent: every field), and its
 * `key` (unique in the page) names what it read in the delivery answer. A block without a
 * `collection` reads nothing and needs no key: it is known by its place in `blocks` (a key it has
 * is still unique). Any other key (`type`, `props`, …) is free JSON for the front end.
 */
export const layoutBlockSchema = z
  .looseObject({
    key: z.string().regex(BLOCK_KEY_PATTERN, 'A block key is 1 to 64 letters, digits, _ or -').optional(),
    collection: collectionName.optional(),
    id: z.string().regex(ITEM_ID_PATTERN, 'An item id is 1 to 128 letters, digits, - or _').optional(),
    /** A filter of the query language (`{ "status": { "_eq": "published" } }`), checked against the collection when read. */
    filter: z.record(z.string(), z.unknown()).optional(),
    fields: z
      .array(z.string().regex(FIELD_PATH_PATTERN, 'A field path is names joined by ".", optionally ending in "*"'))
      .min(1)
      .max(LAYOUT_LIMITS.fields)
      .optional(),
    sort: z
      .array(z.string().regex(SORT_TERM_PATTERN, 'A sort term is a field path, with "-" before it for descending order'))
      .min(1)
      .max(LAYOUT_LIMITS.sortTerms)
      .optional(),
    limit: z.number().int().min(1).max(LAYOUT_LIMITS.listLimit).optional(),
  })
  .superRefine((block, context) => {
    const given = (key: string) => (block as Record<string, unknown>)[key] !== undefined;
    if (block.collection === undefined) {
      for (const key of READING_KEYS.filter(given)) context.addIssue({ code: 'custom', path: [key], message: `"${key}" reads items: name their collection` });
      return;
    }
    if (block.key === undefined) context.addIssue({ code: 'custom', path: ['key'], message: 'A block that reads items needs a key: it names what the block read' });
    if (block.id !== undefined) {
      for (const key of LIST_KEYS.filter(given)) context.addIssue({ code: 'custom', path: [key], message: `A block with an id reads one item: "${key}" is for lists` });
    }
  });
export type LayoutBlock = z.infer<typeof layoutBlockSchema>;
/** A block that reads items: it has its key (the schema's refinement says so). */
export type ReadingBlock = LayoutBlock & { collection: string; key: string };
/** A block that reads nothing: known by its place in `blocks`, a key optional. */
export type StaticBlock = LayoutBlock & { collection?: undefined };

/** A page's layout: its blocks, in order, and any other key as free JSON for the front end. */
export const layoutConfigSchema = z
  .looseObject({ blocks: z.array(layoutBlockSchema).max(LAYOUT_LIMITS.blocks) })
  .superRefine((config, context) => {
    // Runs on what passed and what did not (zod reports both): nothing here trusts the shape.
    const blocks: unknown[] = Array.isArray(config.blocks) ? config.blocks : [];
    const seen = new Set<string>();
    for (const [index, block] of blocks.entries()) {
      const key = (block as { key?: unknown } | null)?.key;
      if (typeof key !== 'string') continue;
      if (seen.has(key)) context.addIssue({ code: 'custom', path: ['blocks', index, 'key'], message: `Another block is keyed "${key}"` });
      seen.add(key);
    }
    if (depthExceeds(config, LAYOUT_LIMITS.depth)) {
      context.addIssue({ code: 'custom', path: [], message: `A layout nests at most ${LAYOUT_LIMITS.depth} levels` });
    } else if (new TextEncoder().encode(JSON.stringify(config)).length > LAYOUT_LIMITS.bytes) {
      context.addIssue({ code: 'custom', path: [], message: `A layout is at most ${LAYOUT_LIMITS.bytes} bytes of JSON` });
    }
  });
/** A layout as written (parsed by the schema). */
export type LayoutInput = z.infer<typeof layoutConfigSchema>;
/** A stored layout as its readers see it: each block typed by what it reads (the refinements above held when it was written). */
export type LayoutConfig = Omit<LayoutInput, 'blocks'> & { blocks: (ReadingBlock | StaticBlock)[] };

function depthExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  return Object.values(value).some((child) => depthExceeds(child, limit - 1));
}

/** What a block reads, for the delivery route that hydrates it. */
export type BlockReading =
  | { kind: 'none' }
  | { kind: 'item'; collection: string; id: string; fields: string[] | null }
  | { kind: 'list'; collection: string; filter: Record<string, unknown> | null; sort: string[]; limit: number | null; fields: string[] | null };

export function readingOf(block: LayoutBlock): BlockReading {
  if (block.collection === undefined) return { kind: 'none' };
  const fields = block.fields ?? null;
  if (block.id !== undefined) return { kind: 'item', collection: block.collection, id: block.id, fields };
  return { kind: 'list', collection: block.collection, filter: block.filter ?? null, sort: block.sort ?? [], limit: block.limit ?? null, fields };
}

export type PageCommand =
  | { type: 'createPage'; pageId: string; slug: string; title: string; layoutConfig: LayoutInput | null }
  | { type: 'updatePage'; changes: { slug?: string; title?: string; layoutConfig?: LayoutInput | null } }
  | { type: 'deletePage' };

export interface PageState {
  status: 'absent' | 'active' | 'deleted';
  pageId: string | null;
  slug: string | null;
  title: string | null;
  layoutConfig: Record<string, unknown> | null;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const notFound = () => new AppError('NOT_FOUND', 'Page not found');

export const pageDecider: Decider<PageState, PageCommand, PageEvent> = {
  eventTypes: eventTypesOf(pageEventSchemas),
  initialState: () => ({ status: 'absent', pageId: null, slug: null, title: null, layoutConfig: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'page.created':
        return { status: 'active', pageId: event.data.pageId, slug: event.data.slug, title: event.data.title, layoutConfig: event.data.layoutConfig };
      case 'page.updated':
        return { ...state, ...event.data.changes };
      case 'page.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createPage':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Page already exists');
        return [{ type: 'page.created', data: { pageId: command.pageId, slug: command.slug, title: command.title, layoutConfig: command.layoutConfig } }];
      case 'updatePage': {
        if (state.status !== 'active') throw notFound();
        // Only what changes is recorded: a PATCH that repeats the page appends nothing.
        const changes: PageChanges = {};
        const { slug, title, layoutConfig } = command.changes;
        if (slug !== undefined && slug !== state.slug) changes.slug = slug;
        if (title !== undefined && title !== state.title) changes.title = title;
        if (layoutConfig !== undefined && !sameJson(layoutConfig, state.layoutConfig)) changes.layoutConfig = layoutConfig;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'page.updated', data: { pageId: state.pageId!, changes } }];
      }
      case 'deletePage':
        if (state.status !== 'active') throw notFound();
        return [{ type: 'page.deleted', data: { pageId: state.pageId!, slug: state.slug! } }];
    }
  },
};
