import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, expectError, patchItem, revisionsOf } from './support.ts';

const service = await startTestServiceForFile();

describe('pins', () => {
  it('pins the item itself and a relation field to revisions, lists and reads them', async () => {
    const site = await createHistorySite(service);
    const author = await createItem(service, site, 'authors', { name: 'Ann' });
    await patchItem(service, site, 'authors', author.id, { name: 'Ann B.' });
    const article = await createItem(service, site, 'articles', { title: 'v1', author: author.id, secret: 'pw' });
    await patchItem(service, site, 'articles', article.id, { title: 'v2' });
    const [, articleV1] = await revisionsOf(service, site, 'articles', article.id);
    const [, authorV1] = await revisionsOf(service, site, 'authors', author.id);

    const whole = await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: articleV1.revisionId } });
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    expect(whole.body.data).toMatchObject({ field: '*', revisionId: articleV1.revisionId, target: { collection: 'articles', item: article.id } });
    expect(whole.body.data.pinned).toMatchObject({ title: 'v1', secret: '**********' });

    const relation = await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: 'author', revisionId: authorV1.revisionId } });
    expect(relation.status).toBe(201);
    expect(relation.body.data.pinned).toMatchObject({ id: author.id, name: 'Ann' });

    const list = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(list.status).toBe(200);
    expect(list.body.data.map((pin: { field: string }) => pin.field)).toEqual(['*', 'author']);
    expect(list.body.meta.total).toBe(2);
    const one = await service.request('GET', `/items/articles/${article.id}/pins/author`, site.as);
    expect(one.body.data.target).toEqual({ collection: 'authors', item: author.id });

    // the live item is untouched
    const live = await service.request('GET', `/items/articles/${article.id}`, site.as);
    expect(live.body.data.title).toBe('v2');
  });

  it('moves a pin when the field is pinned again', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'v1' });
    await patchItem(service, site, 'articles', article.id, { title: 'v2' });
    const [v2, v1] = await revisionsOf(service, site, 'articles', article.id);
    await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: v1.revisionId } });
    const moved = await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: v2.revisionId } });
    expect(moved.status).toBe(201);
    const list = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].revisionId).toBe(v2.revisionId);
  });

  it('refuses to pin a staged revision with 409 REVISION_STAGED', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Live' });
    await patchItem(service, site, 'articles', article.id, { title: 'Draft' }, { 'x-svc-draft': 'true' });
    const [staged] = await revisionsOf(service, site, 'articles', article.id);
    expect(staged.staged).toBe(true);
    const response = await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: staged.revisionId } });
    expectError(response, 409, 'REVISION_STAGED', ['body', 'revisionId']);
    const list = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(list.body.data).toEqual([]);
  });

  it('refuses revisions the field does not refer to, fields that are not relations, and unknown revisions', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const author = await createItem(service, site, 'authors', { name: 'Ann' });
    const otherAuthor = await createItem(service, site, 'authors', { name: 'Bob' });
    const article = await createItem(service, site, 'articles', { title: 'A', author: author.id });
    const sibling = await createItem(service, site, 'articles', { title: 'B' });
    const foreign = await createItem(service, other, 'articles', { title: 'F' });
    const [authorRevision] = await revisionsOf(service, site, 'authors', author.id);
    const [otherAuthorRevision] = await revisionsOf(service, site, 'authors', otherAuthor.id);
    const [articleRevision] = await revisionsOf(service, site, 'articles', article.id);
    const [siblingRevision] = await revisionsOf(service, site, 'articles', sibling.id);
    const [foreignRevision] = await revisionsOf(service, other, 'articles', foreign.id);
    const pin = (body: unknown) => service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body });

    expectError(await pin({ field: '*', revisionId: siblingRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await pin({ field: '*', revisionId: authorRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await pin({ field: 'author', revisionId: articleRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await pin({ field: 'author', revisionId: otherAuthorRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await pin({ field: 'title', revisionId: articleRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'field']);
    expectError(await pin({ field: 'nothing', revisionId: articleRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'field']);
    expectError(await pin({ field: 'bad field!', revisionId: articleRevision.revisionId }), 400, 'VALIDATION_FAILED', ['body', 'field']);
    expectError(await pin({ field: '*' }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await pin({ field: '*', revisionId: foreignRevision.revisionId }), 404, 'RECORD_NOT_FOUND', ['body', 'revisionId']);
    expectError(await pin({ field: '*', revisionId: '00000000-0000-4000-8000-000000000000' }), 404, 'RECORD_NOT_FOUND', ['body', 'revisionId']);
    expectError(
      await service.request('POST', `/items/articles/missing/pins`, { ...site.as, body: { field: '*', revisionId: articleRevision.revisionId } }),
      404,
      'RECORD_NOT_FOUND',
    );
    const list = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(list.body.data).toEqual([]);
  });

  it('releases one pin, then all pins; releasing what is not pinned is 404', async () => {
    const site = await createHistorySite(service);
    const author = await createItem(service, site, 'authors', { name: 'Ann' });
    const article = await createItem(service, site, 'articles', { title: 'A', author: author.id });
    const [articleRevision] = await revisionsOf(service, site, 'articles', article.id);
    const [authorRevision] = await revisionsOf(service, site, 'authors', author.id);
    await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: articleRevision.revisionId } });
    await service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: 'author', revisionId: authorRevision.revisionId } });

    expect((await service.request('DELETE', `/items/articles/${article.id}/pins/author`, site.as)).status).toBe(204);
    expectError(await service.request('DELETE', `/items/articles/${article.id}/pins/author`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${article.id}/pins/author`, site.as), 404, 'NOT_FOUND');
    const remaining = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(remaining.body.data.map((pin: { field: string }) => pin.field)).toEqual(['*']);

    expect((await service.request('DELETE', `/items/articles/${article.id}/pins`, site.as)).status).toBe(204);
    const none = await service.request('GET', `/items/articles/${article.id}/pins`, site.as);
    expect(none.body.data).toEqual([]);
    expect((await service.request('DELETE', `/items/articles/${article.id}/pins`, site.as)).status).toBe(204);
  });

  it('never shows or releases another site’s pins', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const foreign = await createItem(service, other, 'articles', { title: 'F' });
    const [revision] = await revisionsOf(service, other, 'articles', foreign.id);
    await service.request('POST', `/items/articles/${foreign.id}/pins`, { ...other.as, body: { field: '*', revisionId: revision.revisionId } });
    expectError(await service.request('GET', `/items/articles/${foreign.id}/pins`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${foreign.id}/pins/*`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('DELETE', `/items/articles/${foreign.id}/pins/*`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('DELETE', `/items/articles/${foreign.id}/pins`, site.as), 404, 'RECORD_NOT_FOUND');
    const still = await service.request('GET', `/items/articles/${foreign.id}/pins`, other.as);
    expect(still.body.data).toHaveLength(1);
  });
});
