// A release's item writes run the items' after-commit hooks once the publish commits, and only for
// the writes that committed: an all_or_nothing publish rolled back to its savepoint runs none.
import { afterEach, describe, expect, it } from 'vitest';
import type { CommittedItem } from '../../../src/runtime/itemHooks.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withHelpers } from '../access/support.ts';

const service = await startTestServiceForFile();
const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

describe('after-commit hooks of a release publish', () => {
  it('run for the items a publish committed, and for none of an all_or_nothing publish rolled back', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const ids: string[] = [];
    for (const title of ['A', 'B', 'C']) ids.push((await site.admin('POST', '/items/articles', { title, status: 'draft' })).body.data.id);
    const [a, b, c] = ids as [string, string, string];
    const seen: CommittedItem[] = [];
    removals.push(
      service.context.itemHooks.register({
        name: 'test-release-watch',
        kinds: ['update'],
        collections: (collection) => collection.name === 'articles',
        async afterCommit(write) {
          if (write.siteId === site.siteId) seen.push(write);
        },
      }),
    );
    const entry = (itemId: string) => ({ collection: 'articles', itemId, targetStatus: 'published' });
    const release = (await site.admin('POST', '/releases', { name: 'Launch', addItems: [entry(a), entry(b), entry(c)] })).body.data.id;
    expect((await site.admin('DELETE', `/items/articles/${b}`)).status).toBe(204);

    const failed = await site.admin('POST', `/releases/${release}/publish`);
    expect(failed.body.data.status).toBe('failed');
    expect(seen).toEqual([]);

    expect((await site.admin('PATCH', `/releases/${release}`, { removeItems: [{ collection: 'articles', itemId: b }] })).status).toBe(200);
    const published = await site.admin('POST', `/releases/${release}/publish`);
    expect(published.body.data.status).toBe('published');
    expect(seen.map((write) => [write.itemId, write.after?.status, write.cause]).sort()).toEqual(
      [
        [a, 'published', { releaseId: release }],
        [c, 'published', { releaseId: release }],
      ].sort(),
    );
  });
});
