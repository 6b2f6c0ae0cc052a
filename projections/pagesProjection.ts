// The page builder's pages of each site. Delivery's caches need no signal of their own: a page event
// is an event of the site, which rotates its content fingerprint (src/modules/delivery/fingerprint.ts).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

const json = (value: Record<string, unknown> | null) => (value === null ? null : JSON.stringify(value));

export const pagesProjection = defineProjection({
  name: 'pages',
  mode: 'inline',
  tables: ['pages'],
  handlers: {
    'page.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO pages (site_id, id, slug, title, layout_config, created_at, updated_at)
        VALUES (${event.siteId}, ${d.pageId}, ${d.slug}, ${d.title}, ${json(d.layoutConfig)}::jsonb, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'page.updated': async (tx, event) => {
      const { pageId, changes } = event.data;
      await tx.query(sql`
        UPDATE pages SET slug = coalesce(${changes.slug ?? null}::text, slug),
               title = coalesce(${changes.title ?? null}::text, title),
               layout_config = CASE WHEN ${changes.layoutConfig !== undefined}::boolean THEN ${json(changes.layoutConfig ?? null)}::jsonb ELSE layout_config END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${pageId}`);
    },
    'page.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM pages WHERE site_id = ${event.siteId} AND id = ${event.data.pageId}`);
    },
  },
});
