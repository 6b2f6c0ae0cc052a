// The translation memory read models give the same rows when rebuilt from the log: entries saved,
// upserted again, patched and deleted; glossary terms created, renamed and deleted. On a database of
// the file's own: a rebuild rewrites the whole tables, which other files' entries must not see.
import { describe, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { translationMemoryProjection } from '../../../projections/translationMemoryProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { addTerm, createTmSite, saveEntry } from './support/tmHelpers.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function snapshot(siteIds: string[]): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    tm_entries: await rows(sql`SELECT * FROM tm_entries WHERE site_id = ANY(${siteIds}) ORDER BY site_id, id`),
    tm_glossary: await rows(sql`SELECT * FROM tm_glossary WHERE site_id = ANY(${siteIds}) ORDER BY site_id, id`),
  };
}

describe('translation memory read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createTmSite(service, 'tmrb');
    const other = await createTmSite(service, 'tmrb2');
    const kept = await saveEntry(site, { sourceText: 'Hello  World', targetText: 'Hallo Welt', context: 'greeting' });
    await saveEntry(site, { sourceText: 'hello world', targetText: 'Hallo, Welt', quality: 80, source: 'articles/1' }, 200);
    await site.asMember('PATCH', `/tm/${kept.id}`, { context: null, quality: 85 });
    const gone = await saveEntry(site, { targetLang: 'fr', sourceText: 'Goodbye', targetText: 'Au revoir', entrySource: 'import' });
    await site.asMember('DELETE', `/tm/${gone.id}`);
    await saveEntry(site, { sourceText: 'Provider text', targetText: 'Anbietertext', entrySource: 'provider' });
    await saveEntry(other, { sourceText: 'Hello world', targetText: 'Servus' });

    const term = await addTerm(site, { term: 'Widget', translation: 'Bauteil' });
    await site.admin('PATCH', `/tm/glossary/${term.id}`, { term: 'Gadget', caseSensitive: true });
    const removed = await addTerm(site, { term: 'Cart', translation: 'Warenkorb' });
    await site.admin('DELETE', `/tm/glossary/${removed.id}`);
    await addTerm(other, { term: 'Cart', translation: 'Korb' });

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [translationMemoryProjection],
      snapshot: () => snapshot([site.siteId, other.siteId]),
      tablesWithRows: ['tm_entries', 'tm_glossary'],
    });
  });
});
