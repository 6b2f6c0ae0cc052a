// The page builder's pages of each site. Every change announces its site on DELIVERY_CHANNEL once
// committed, so the delivery cache of every instance drops what it holds for that site.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

/** The NOTIFY channel whose payload is a site id whose delivered pages changed. */
export const DELIVERY_CHANNEL = 'svc_delivery';

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
      tx.notifyAfterCommit(DELIVERY_CHANNEL, event.siteId);
    },
    'page.updated': async (tx, event) => {
      const { pageId, changes } = event.data;
      await tx.query(sql`
        UPDATE pages SET slug = coalesce(${changes.slug ?? null}::text, slug),
               title = coalesce(${changes.title ?? null}::text, title),
               layout_config = CASE WHEN ${changes.layoutConfig !== undefined}::boolean THEN ${json(changes.layoutConfig ?? null)}::jsonb ELSE layout_config END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${pageId}`);
      tx.notifyAfterCommit(DELIVERY_CHANNEL, event.siteId);
    },
    'page.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM pages WHERE site_id = ${event.siteId} AND id = ${event.data.pageId}`);
      tx.notifyAfterCommit(DELIVERY_CHANNEL, event.siteId);
    },
  },
});
