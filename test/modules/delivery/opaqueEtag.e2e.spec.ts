// The delivery ETag is opaque per site (issue 27, finding 11): it holds no transaction id nor log
// position, so another site's writes cannot be counted from it; it still gives 304 while the site's
// content holds, rotates on the site's writes, and is the same from every instance (and after a
// restart) that shares the deployment secret.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { appendItemEvent, until } from '../cdc/support.ts';
import { createArticle, createDeliverySite, createPage, deliver, type DeliverySite } from './support.ts';

const first = await startTestServiceForFile();
const second = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

/** The page's ETag once the site has settled: two answers in a row carry the same one (an unsettled ETag never repeats). */
async function settledEtag(service: TestService, path: string): Promise<string> {
  let previous: string | null = null;
  const answer = await until(
    async () => {
      const current = (await deliver(service, path)).headers.get('etag');
      const repeated = current !== null && current === previous;
      previous = current;
      return { current, repeated };
    },
    (state) => state.repeated,
    60_000,
  );
  expect(answer.repeated, 'the site never settled').toBe(true);
  return answer.current!;
}

async function siteWithHome(): Promise<DeliverySite & { path: string }> {
  const site = await createDeliverySite(first);
  await createArticle(site, { title: 'First', author: site.authors.ada });
  await createPage(site, { slug: 'home', title: 'Home', layoutConfig: { blocks: [{ key: 'latest', collection: 'articles', fields: ['title'] }] } });
  return { ...site, path: `/deliver/page/${site.siteId}/home` };
}

describe('the delivery ETag', () => {
  it('holds neither a transaction id nor a log position, and does not move with other sites\' writes', async () => {
    const site = await siteWithHome();
    const other = await createDeliverySite(first);
    const etag = await settledEtag(first, site.path);
    const [last] = await owner.query<{ tx_id: string; position: string }>(
      sql`SELECT tx_id::text AS tx_id, position::text AS position FROM events WHERE site_id = ${site.siteId} ORDER BY position DESC LIMIT 1`,
    );
    // One opaque token: not "<site>.<transaction>.<position>".
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{16,}"$/);
    expect(etag).not.toContain(last!.tx_id);
    expect(etag).not.toContain(site.siteId);

    // Another site writes 50 times: this site's ETag says nothing of it.
    for (let index = 0; index < 50; index += 1) await appendItemEvent(first, other.siteId, { type: 'item.created', collection: 'articles' });
    expect(await settledEtag(first, site.path)).toBe(etag);
    const revalidated = await deliver(first, site.path, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
  });

  it('gives 304 while the content holds and rotates on a write of the site', async () => {
    const site = await siteWithHome();
    const etag = await settledEtag(first, site.path);
    expect((await deliver(first, site.path, { 'if-none-match': etag })).status).toBe(304);
    await createArticle(site, { title: 'Second', author: site.authors.bob });
    const rotated = await settledEtag(first, site.path);
    expect(rotated).not.toBe(etag);
    expect((await deliver(first, site.path, { 'if-none-match': etag })).status).toBe(200);
    expect((await deliver(first, site.path, { 'if-none-match': rotated })).status).toBe(304);
  });

  it('is the same from another instance with the same secret (a restart, a second replica)', async () => {
    const site = await siteWithHome();
    const etag = await settledEtag(first, site.path);
    expect(await settledEtag(second, site.path)).toBe(etag);
    expect((await deliver(second, site.path, { 'if-none-match': etag })).status).toBe(304);
  });
});
