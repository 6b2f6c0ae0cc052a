// The tenant registry (instance-level table `sites`) with each site's configuration.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const sitesProjection = defineProjection({
  name: 'sites',
  mode: 'inline',
  tables: ['sites'],
  handlers: {
    'site.created': async (tx, { data }) => {
      await tx.query(sql`INSERT INTO sites (id, name, created_at) VALUES (${data.siteId}, ${data.name}, ${data.createdAt})`);
    },
    'site.deleted': async (tx, { data }) => {
      await tx.query(sql`UPDATE sites SET deleted_at = ${data.deletedAt} WHERE id = ${data.siteId}`);
    },
    // Only the fields the event names change: branding merges by key, theme overrides by mode
    // (null resets both modes), as domain/sites/siteConfig.ts applies them.
    'site.configured': async (tx, event) => {
      const changes = event.data.changes;
      const has = (key: keyof typeof changes) => changes[key] !== undefined;
      await tx.query(sql`
        UPDATE sites SET
          name = CASE WHEN ${has('name')} THEN ${changes.name ?? null}::text ELSE name END,
          display_title = CASE WHEN ${has('displayTitle')} THEN ${changes.displayTitle ?? null}::text ELSE display_title END,
          site_url = CASE WHEN ${has('siteUrl')} THEN ${changes.siteUrl ?? null}::text ELSE site_url END,
          descriptor = CASE WHEN ${has('descriptor')} THEN ${changes.descriptor ?? null}::text ELSE descriptor END,
          domain = CASE WHEN ${has('domain')} THEN ${changes.domain ?? null}::text ELSE domain END,
          default_language = CASE WHEN ${has('defaultLanguage')} THEN ${changes.defaultLanguage ?? null}::text ELSE default_language END,
          default_appearance = CASE WHEN ${has('defaultAppearance')} THEN ${changes.defaultAppearance ?? null}::text ELSE default_appearance END,
          default_save_action = CASE WHEN ${has('defaultSaveAction')} THEN ${changes.defaultSaveAction ?? null}::text ELSE default_save_action END,
          branding = branding || ${JSON.stringify(changes.branding ?? {})}::jsonb,
          theme_overrides = CASE WHEN ${changes.themeOverrides === null} THEN '{"light": {}, "dark": {}}'::jsonb
                                 ELSE theme_overrides || ${JSON.stringify(changes.themeOverrides ?? {})}::jsonb END,
          custom_css = CASE WHEN ${has('customCss')} THEN ${changes.customCss ?? null}::text ELSE custom_css END
        WHERE id = ${event.data.siteId}`);
    },
  },
});
