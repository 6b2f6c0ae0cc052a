// A site's email layouts and templates as they are now, and every version of every template (kept
// after a delete: sends name the version they used). Every event carries the whole content.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

async function upsertLayout(tx: Queryable, event: StoredEvent<'email_layout.created' | 'email_layout.updated'>): Promise<void> {
  const { layoutId, version, layout } = event.data;
  await tx.query(sql`
    INSERT INTO email_layouts (site_id, id, name, html, version, created_at, updated_at)
    VALUES (${event.siteId}, ${layoutId}, ${layout.name}, ${layout.html}, ${version}, ${event.recordedAt}, ${event.recordedAt})
    ON CONFLICT (site_id, id) DO UPDATE SET name = EXCLUDED.name, html = EXCLUDED.html, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`);
}

async function upsertTemplate(tx: Queryable, event: StoredEvent<'email_template.created' | 'email_template.updated'>): Promise<void> {
  const { templateId, version, template: t } = event.data;
  await tx.query(sql`
    INSERT INTO email_templates (site_id, id, key, subject, html, text, layout_id, category, variables, version, created_at, updated_at)
    VALUES (${event.siteId}, ${templateId}, ${t.key}, ${t.subject}, ${t.html}, ${t.text}, ${t.layoutId}::uuid, ${t.category}, ${t.variables}::text[],
            ${version}, ${event.recordedAt}, ${event.recordedAt})
    ON CONFLICT (site_id, id) DO UPDATE SET key = EXCLUDED.key, subject = EXCLUDED.subject, html = EXCLUDED.html, text = EXCLUDED.text,
           layout_id = EXCLUDED.layout_id, category = EXCLUDED.category, variables = EXCLUDED.variables, version = EXCLUDED.version,
           updated_at = EXCLUDED.updated_at`);
  await tx.query(sql`
    INSERT INTO email_template_versions (site_id, template_id, version, key, subject, html, text, layout_id, category, variables, created_at)
    VALUES (${event.siteId}, ${templateId}, ${version}, ${t.key}, ${t.subject}, ${t.html}, ${t.text}, ${t.layoutId}::uuid, ${t.category},
            ${t.variables}::text[], ${event.recordedAt})
    ON CONFLICT DO NOTHING`);
}

export const emailTemplatesProjection = defineProjection({
  name: 'email_templates',
  mode: 'inline',
  tables: ['email_layouts', 'email_templates', 'email_template_versions'],
  handlers: {
    'email_layout.created': upsertLayout,
    'email_layout.updated': upsertLayout,
    'email_layout.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM email_layouts WHERE site_id = ${event.siteId} AND id = ${event.data.layoutId}`);
    },
    'email_template.created': upsertTemplate,
    'email_template.updated': upsertTemplate,
    'email_template.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM email_templates WHERE site_id = ${event.siteId} AND id = ${event.data.templateId}`);
    },
  },
});
