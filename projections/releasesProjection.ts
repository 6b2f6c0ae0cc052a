// Releases of each site and the items each holds.
import type { ReleaseItem } from '../domain/releases/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

/** Inserts the items, or replaces the target status and pin of those already held (their added_at stays). */
async function upsertItems(tx: Queryable, siteId: string, releaseId: string, items: readonly ReleaseItem[], at: Date): Promise<void> {
  if (items.length === 0) return;
  await tx.query(sql`
    INSERT INTO release_items (site_id, release_id, collection, item_id, target_status, revision_id, added_at)
    SELECT ${siteId}, ${releaseId}, i.collection, i."itemId", i."targetStatus", i."revisionId", ${at}
      FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS i(collection text, "itemId" text, "targetStatus" text, "revisionId" uuid)
    ON CONFLICT (site_id, release_id, collection, item_id)
      DO UPDATE SET target_status = excluded.target_status, revision_id = excluded.revision_id`);
}

export const releasesProjection = defineProjection({
  name: 'releases',
  mode: 'inline',
  tables: ['release_items', 'releases'],
  handlers: {
    'release.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO releases (site_id, id, name, status, atomicity_mode, publish_at, maintenance_window, created_at, updated_at)
        VALUES (${event.siteId}, ${d.releaseId}, ${d.name}, ${d.status}, ${d.atomicityMode}, ${d.publishAt}::timestamptz,
                ${d.maintenanceWindow === null ? null : JSON.stringify(d.maintenanceWindow)}::jsonb, ${event.recordedAt}, ${event.recordedAt})`);
      await upsertItems(tx, event.siteId, d.releaseId, d.items, event.recordedAt);
    },
    'release.updated': async (tx, event) => {
      const { releaseId, changes } = event.data;
      await tx.query(sql`
        UPDATE releases SET name = coalesce(${changes.name ?? null}::text, name),
               status = coalesce(${changes.status ?? null}::text, status),
               atomicity_mode = coalesce(${changes.atomicityMode ?? null}::text, atomicity_mode),
               publish_at = CASE WHEN ${changes.publishAt !== undefined}::boolean THEN ${changes.publishAt ?? null}::timestamptz ELSE publish_at END,
               maintenance_window = CASE WHEN ${changes.maintenanceWindow !== undefined}::boolean
                                         THEN ${changes.maintenanceWindow ? JSON.stringify(changes.maintenanceWindow) : null}::jsonb ELSE maintenance_window END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${releaseId}`);
    },
    'release.items_added': async (tx, event) => {
      await upsertItems(tx, event.siteId, event.data.releaseId, event.data.items, event.recordedAt);
      await tx.query(sql`UPDATE releases SET updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.releaseId}`);
    },
    'release.items_removed': async (tx, event) => {
      const { releaseId, items } = event.data;
      await tx.query(sql`
        DELETE FROM release_items r
         USING jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS i(collection text, "itemId" text)
         WHERE r.site_id = ${event.siteId} AND r.release_id = ${releaseId} AND r.collection = i.collection AND r.item_id = i."itemId"`);
      await tx.query(sql`UPDATE releases SET updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${releaseId}`);
    },
    'release.published': async (tx, event) => {
      const { releaseId, status, outcomes } = event.data;
      await tx.query(sql`
        UPDATE releases SET status = ${status}, published_at = ${event.recordedAt}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${releaseId}`);
      // The first version a publish moved an item from is kept: a revert goes back to before the release.
      await tx.query(sql`
        UPDATE release_items r SET outcome = o.outcome, outcome_reason = o.reason, outcome_message = o.message,
               from_version = coalesce(r.from_version, o."fromVersion"), to_version = coalesce(o."toVersion", r.to_version)
          FROM jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
               AS o(collection text, "itemId" text, outcome text, reason text, message text, "fromVersion" int, "toVersion" int)
         WHERE r.site_id = ${event.siteId} AND r.release_id = ${releaseId} AND r.collection = o.collection AND r.item_id = o."itemId"`);
    },
    'release.reverted': async (tx, event) => {
      await tx.query(sql`
        UPDATE releases SET reverted_at = ${event.recordedAt}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.releaseId}`);
    },
    'release.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM release_items WHERE site_id = ${event.siteId} AND release_id = ${event.data.releaseId}`);
      await tx.query(sql`DELETE FROM releases WHERE site_id = ${event.siteId} AND id = ${event.data.releaseId}`);
    },
  },
});
