// A site's translation memory (docs/translation.md): its entries and its glossary terms, inline so
// that an upsert's answer and the next lookup see the write at once.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const translationMemoryProjection = defineProjection({
  name: 'translation-memory',
  mode: 'inline',
  tables: ['tm_entries', 'tm_glossary'],
  maintainers: [
    {
      table: 'tm_entries',
      writer: 'scripts/bench/support/insightsTranslation.ts (seeding)',
      why: 'the translation memory benchmark seeds 100,000 entries straight into its scratch database before it times lookups.',
    },
  ],
  handlers: {
    'tm_entry.saved': async (tx, event) => {
      const d = event.data;
      tx.defer(sql`
        INSERT INTO tm_entries (site_id, id, source_lang, target_lang, source_text, normalized_source, target_text, quality, context, source, entry_source, created_at, updated_at)
        VALUES (${event.siteId}, ${d.entryId}, ${d.sourceLang}, ${d.targetLang}, ${d.sourceText}, ${d.normalizedSource}, ${d.targetText}, ${d.quality},
                ${d.context}, ${d.source}, ${d.entrySource}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'tm_entry.updated': async (tx, event) => {
      const { entryId, changes } = event.data;
      const has = (key: keyof typeof changes) => changes[key] !== undefined;
      tx.defer(sql`
        UPDATE tm_entries
           SET target_text = coalesce(${changes.targetText ?? null}::text, target_text),
               quality = coalesce(${changes.quality ?? null}::smallint, quality),
               context = CASE WHEN ${has('context')}::boolean THEN ${changes.context ?? null}::text ELSE context END,
               source = CASE WHEN ${has('source')}::boolean THEN ${changes.source ?? null}::text ELSE source END,
               entry_source = coalesce(${changes.entrySource ?? null}::text, entry_source),
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${entryId}`);
    },
    'tm_entry.deleted': async (tx, event) => {
      tx.defer(sql`DELETE FROM tm_entries WHERE site_id = ${event.siteId} AND id = ${event.data.entryId}`);
    },
    'tm_glossary_term.created': async (tx, event) => {
      const d = event.data;
      tx.defer(sql`
        INSERT INTO tm_glossary (site_id, id, source_lang, target_lang, term, normalized_term, translation, case_sensitive, created_at, updated_at)
        VALUES (${event.siteId}, ${d.termId}, ${d.sourceLang}, ${d.targetLang}, ${d.term}, ${d.normalizedTerm}, ${d.translation}, ${d.caseSensitive},
                ${event.recordedAt}, ${event.recordedAt})`);
    },
    'tm_glossary_term.updated': async (tx, event) => {
      const { termId, changes } = event.data;
      tx.defer(sql`
        UPDATE tm_glossary
           SET term = coalesce(${changes.term ?? null}::text, term),
               normalized_term = coalesce(${changes.normalizedTerm ?? null}::text, normalized_term),
               translation = coalesce(${changes.translation ?? null}::text, translation),
               case_sensitive = coalesce(${changes.caseSensitive ?? null}::boolean, case_sensitive),
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${termId}`);
    },
    'tm_glossary_term.deleted': async (tx, event) => {
      tx.defer(sql`DELETE FROM tm_glossary WHERE site_id = ${event.siteId} AND id = ${event.data.termId}`);
    },
  },
});
