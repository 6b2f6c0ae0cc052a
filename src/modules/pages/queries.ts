// Reads of the pages read model, shaped for the answer. findPageBySlug is the delivery route's way in.
import type { LayoutConfig } from '../../../domain/delivery/page.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { ListPagesQuery, PageView } from './schemas.ts';

interface PageRow {
  id: string;
  slug: string;
  title: string;
  layout_config: LayoutConfig | null;
  created_at: Date;
  updated_at: Date;
}

const viewOf = (row: PageRow): PageView => ({
  id: row.id,
  slug: row.slug,
  title: row.title,
  layoutConfig: row.layout_config,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const PAGE_SELECT = sql`SELECT id, slug, title, layout_config, created_at, updated_at FROM pages`;

// Each order is served by an index: pages_list (site_id, created_at DESC, id), pages_slug (site_id, slug).
const ORDERS = {
  '-createdAt': sql`ORDER BY created_at DESC, id`,
  slug: sql`ORDER BY slug`,
} as const;

export async function listPages(tx: Queryable, siteId: string, query: ListPagesQuery): Promise<{ pages: PageView[]; total: number }> {
  const rows = await tx.query<PageRow>(
    sql`${PAGE_SELECT} WHERE site_id = ${siteId} ${ORDERS[query.sort]} LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM pages WHERE site_id = ${siteId}`);
  return { pages: rows.map(viewOf), total: count?.total ?? 0 };
}

export async function findPage(tx: Queryable, siteId: string, pageId: string): Promise<PageView | null> {
  const [row] = await tx.query<PageRow>(sql`${PAGE_SELECT} WHERE site_id = ${siteId} AND id = ${pageId}`);
  return row ? viewOf(row) : null;
}

/** The page of the site at `slug`, or null (any text may be asked: one that is no slug finds nothing). */
export async function findPageBySlug(tx: Queryable, siteId: string, slug: string): Promise<PageView | null> {
  const [row] = await tx.query<PageRow>(sql`${PAGE_SELECT} WHERE site_id = ${siteId} AND slug = ${slug}`);
  return row ? viewOf(row) : null;
}

/** The id of another page of the site at `slug`, or null. */
export async function pageAtSlug(tx: Queryable, siteId: string, slug: string, exceptPageId: string): Promise<string | null> {
  const [row] = await tx.query<{ id: string }>(sql`SELECT id FROM pages WHERE site_id = ${siteId} AND slug = ${slug} AND id <> ${exceptPageId}`);
  return row?.id ?? null;
}
