// Each site's extensions as they are now (docs/extensions.md), and the code of each one's current
// bundle in a table of its own (read only by a run). Both come from the install and upgrade events,
// which carry the signed bundle: a rebuild gives the same rows.
import type { EventDataOf } from '../domain/shared/eventCatalogue.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

/** The code of a bundle the handler verified and parsed: `{ manifest, code }` as JSON text. */
function codeOf(bundle: string): string {
  const parsed = JSON.parse(bundle) as { code?: unknown };
  return typeof parsed.code === 'string' ? parsed.code : '';
}

async function writeCode(tx: Queryable, siteId: string, data: EventDataOf<'extension.installed'>): Promise<void> {
  await tx.query(sql`
    INSERT INTO extension_code (site_id, extension_id, sha256, code) VALUES (${siteId}, ${data.extensionId}, ${data.sha256}, ${codeOf(data.bundle)})
    ON CONFLICT (site_id, extension_id) DO UPDATE SET sha256 = excluded.sha256, code = excluded.code`);
}

export const extensionsProjection = defineProjection({
  name: 'extensions',
  mode: 'inline',
  tables: ['extensions', 'extension_code'],
  handlers: {
    'extension.installed': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO extensions (site_id, id, name, version, description, entry, status, official, key_id, sha256, requested, granted, ui, created_at, updated_at)
        VALUES (${event.siteId}, ${d.extensionId}, ${d.name}, ${d.version}, ${d.description}, ${d.entry}, 'disabled', ${d.official}, ${d.keyId}, ${d.sha256},
                ${d.capabilities}::text[], '{}'::text[], ${d.ui === null ? null : JSON.stringify(d.ui)}::jsonb, ${event.recordedAt}, ${event.recordedAt})`);
      await writeCode(tx, event.siteId, d);
    },
    'extension.upgraded': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE extensions
           SET version = ${d.version}, description = ${d.description}, entry = ${d.entry}, official = ${d.official}, key_id = ${d.keyId}, sha256 = ${d.sha256},
               requested = ${d.capabilities}::text[], granted = ${d.granted}::text[], ui = ${d.ui === null ? null : JSON.stringify(d.ui)}::jsonb, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${d.extensionId}`);
      await writeCode(tx, event.siteId, d);
    },
    'extension.enabled': async (tx, event) => {
      await tx.query(sql`UPDATE extensions SET status = 'enabled', updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.extensionId}`);
    },
    'extension.disabled': async (tx, event) => {
      await tx.query(sql`UPDATE extensions SET status = 'disabled', updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.extensionId}`);
    },
    'extension.capabilities_granted': async (tx, event) => {
      await tx.query(sql`
        UPDATE extensions SET granted = ${event.data.granted}::text[], updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.extensionId}`);
    },
  },
});
