// The pages read model gives the same rows when rebuilt from the log as it did incrementally.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withCall } from '../items/support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('pages read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = withCall(service, await createTestSite(service));
    const create = async (body: Record<string, unknown>) => {
      const created = await site.call('POST', '/pages', body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.data as { id: string };
    };
    const layout = { blocks: [{ key: 'hero', type: 'hero', props: { heading: 'Hi' } }, { key: 'latest', collection: 'articles', sort: ['-published_at'], limit: 5 }] };
    const home = await create({ slug: 'home', title: 'Home', layoutConfig: layout });
    const about = await create({ slug: 'about', title: 'About' });
    const gone = await create({ slug: 'gone', title: 'Gone', layoutConfig: { blocks: [] } });
    expect((await site.call('PATCH', `/pages/${home.id}`, { slug: 'start', title: 'Start' })).status).toBe(200);
    expect((await site.call('PATCH', `/pages/${about.id}`, { layoutConfig: { blocks: [{ key: 'team', collection: 'people', id: 'p1' }], theme: 'light' } })).status).toBe(200);
    expect((await site.call('PATCH', `/pages/${home.id}`, { layoutConfig: null })).status).toBe(200);
    expect((await site.call('DELETE', `/pages/${gone.id}`)).status).toBe(204);
    // The deleted page's slug, taken again by a new page.
    await create({ slug: 'gone', title: 'Back again' });

    const rows = async () => (await owner.query(sql`SELECT * FROM pages WHERE site_id = ${site.siteId}`)).map((row) => JSON.stringify(row)).sort();
    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [findProjection('pages')!],
      snapshot: async () => ({ pages: await rows() }),
      tablesWithRows: ['pages'],
    });
  });
});
