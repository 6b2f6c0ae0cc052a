// What public delivery reads, as the public role (docs/delivery.md): a page with every item its
// layout's blocks reference, a public list of items, a menu, and llms.txt. Reads go through the item
// read path (listItems / getItem) with the public role's permissions, so a collection the public role
// may not read shows nothing: a block of it reads as empty, a list of it is a miss.
import type { LayoutBlock, LayoutConfig } from '../../../domain/delivery/page.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { guardItemReadBy } from '../../access/itemGuards.ts';
import type { Principal } from '../../auth/principal.ts';
import { DEFAULT_LIMIT, parseSortList, type ListQuery } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import { getItem, listItems } from '../items/queries.ts';
import { findPageBySlug, listPages } from '../pages/queries.ts';
import { readEffectiveSettings } from '../settings/settingsStore.ts';

const ANONYMOUS: Principal = { kind: 'anonymous' };
const PUBLIC_METADATA: EventMetadata = { actor: { kind: 'anonymous', id: null } };

export interface PublicReader {
  siteId: string;
  /** The public role's rights in the site. */
  access: Access;
  metadata?: EventMetadata;
}

/** A built answer: its JSON body and the surrogate keys of what it was built from. */
export interface Built {
  body: unknown;
  tags: string[];
}

export const siteTag = (siteId: string) => `site:${siteId}`;
export const collectionTag = (siteId: string, collection: string) => `collection:${siteId}/${collection}`;
export const pageTag = (siteId: string, slug: string) => `page:${siteId}/${slug}`;
export const menuTag = (siteId: string, key: string) => `menu:${siteId}/${key}`;

/** Refusals that mean "nothing public here" rather than a bad request. */
const isHidden = (error: unknown) =>
  error instanceof AppError && ['PERMISSION_DENIED', 'UNAUTHENTICATED', 'NOT_FOUND', 'RECORD_NOT_FOUND'].includes(error.code);


function readInput(reader: PublicReader, collection: string) {
  return { siteId: reader.siteId, collection, principal: ANONYMOUS, metadata: reader.metadata ?? PUBLIC_METADATA };
}

/** One block's items: `{ item }` for a block with an id, `{ items }` for a list; null and [] when the public may not read them. */
async function hydrateBlock(app: AppContext, reader: PublicReader, block: LayoutBlock): Promise<Record<string, unknown>> {
  const collection = block.collection!;
  const fields = block.fields ?? null;
  try {
    if (block.id !== undefined) {
      const restrictions = await guardItemReadBy(app, reader.access, collection, { filter: null, sort: [], deep: {} });
      const { item } = await getItem(app, { ...readInput(reader, collection), id: block.id, query: { fields, deep: {} }, restrictions });
      return { item };
    }
    const query: ListQuery = {
      fields,
      filter: block.filter ?? null,
      sort: parseSortList(block.sort ?? null, ['sort']),
      limit: block.limit ?? DEFAULT_LIMIT,
      offset: 0,
      page: null,
      meta: 'none',
      aggregate: null,
      groupBy: [],
      deep: {},
      search: null,
    };
    const restrictions = await guardItemReadBy(app, reader.access, collection, query);
    const { data } = await listItems(app, { ...readInput(reader, collection), query, restrictions });
    return { items: Array.isArray(data) ? data : data ? [data] : [] };
  } catch (error) {
    if (isHidden(error)) return block.id !== undefined ? { item: null } : { items: [] };
    // A block whose query no longer fits the collection (a field since removed): empty, with why.
    if (error instanceof AppError && error.status < 500) return { ...(block.id !== undefined ? { item: null } : { items: [] }), error: error.code };
    throw error;
  }
}

/** The page at `slug` with its blocks hydrated, or null for a miss. */
export async function hydratePage(app: AppContext, reader: PublicReader, slug: string): Promise<Built | null> {
  const page = await app.database.withSiteReads(reader.siteId, (tx) => findPageBySlug(tx, reader.siteId, slug));
  if (!page) return null;
  const layout = (page.layoutConfig ?? { blocks: [] }) as LayoutConfig;
  const blocks = layout.blocks ?? [];
  const tags = new Set([siteTag(reader.siteId), pageTag(reader.siteId, page.slug)]);
  const hydrated: Record<string, unknown> = {};
  for (const block of blocks) {
    if (!block.collection) continue;
    tags.add(collectionTag(reader.siteId, block.collection));
    hydrated[block.key] = { collection: block.collection, ...(await hydrateBlock(app, reader, block)) };
  }
  return {
    body: { data: { id: page.id, slug: page.slug, title: page.title, layoutConfig: page.layoutConfig, updatedAt: page.updatedAt, blocks: hydrated } },
    tags: [...tags],
  };
}

/** A public list of `collection` with the list query language; null (a miss) when the public may not read it. */
export async function publicList(app: AppContext, reader: PublicReader, collection: string, query: ListQuery): Promise<Built | null> {
  try {
    const restrictions = await guardItemReadBy(app, reader.access, collection, query);
    const result = await listItems(app, { ...readInput(reader, collection), query, restrictions });
    return { body: result.meta ? { data: result.data, meta: result.meta } : { data: result.data }, tags: [siteTag(reader.siteId), collectionTag(reader.siteId, collection)] };
  } catch (error) {
    if (isHidden(error)) return null;
    throw error;
  }
}

/** The menu `key` of the `menus` setting, or null. */
export async function publicMenu(app: AppContext, siteId: string, key: string): Promise<Built | null> {
  const settings = await app.database.withSiteReads(siteId, (tx) => readEffectiveSettings(tx, siteId));
  const menus = (settings.menus ?? {}) as Record<string, unknown>;
  if (!Object.hasOwn(menus, key)) return null;
  return { body: { data: { key, ...(menus[key] as object) } }, tags: [siteTag(siteId), menuTag(siteId, key)] };
}

const line = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/** llms.txt (llmstxt.org): the site's name and description, then its pages and public collections with their delivery URLs. */
export async function llmsText(app: AppContext, reader: PublicReader, baseUrl: string): Promise<Built> {
  const { siteId } = reader;
  const [site] = await app.database.withSiteReads(siteId, (tx) =>
    tx.query<{ name: string; display_title: string | null; descriptor: string | null; site_url: string | null }>(
      sql`SELECT name, display_title, descriptor, site_url FROM sites WHERE id = ${siteId}`,
    ),
  );
  const pages = await app.database.withSiteReads(siteId, (tx) => listPages(tx, siteId, { limit: 200, page: 1, sort: 'slug' }));
  const schema = await app.schemas.site(siteId);
  const collections = [...schema.collections.keys()].filter((name) => reader.access.can('read', name)).sort();
  const out = [`# ${line(site?.display_title) || line(site?.name) || siteId}`, ''];
  const description = line(site?.descriptor);
  if (description) out.push(`> ${description}`, '');
  if (site?.site_url) out.push(`Website: ${site.site_url}`, '');
  out.push('## Pages', '');
  for (const page of pages.pages) out.push(`- [${line(page.title)}](${baseUrl}/deliver/page/${siteId}/${page.slug})`);
  if (pages.pages.length === 0) out.push('(none)');
  out.push('', '## Collections', '');
  for (const name of collections) out.push(`- [${name}](${baseUrl}/deliver/items/${name}): public items of "${name}" (send X-Svc-Site: ${siteId})`);
  if (collections.length === 0) out.push('(none)');
  return { body: `${out.join('\n')}\n`, tags: [siteTag(siteId)] };
}
