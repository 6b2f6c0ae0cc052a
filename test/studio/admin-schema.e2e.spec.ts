// Administration, the content model: a collection created and its meta edited, fields added, edited
// and removed (a select's choices included), an m2o relation, a soft delete, and a refused name shown
// at its field; each checked against what the API then holds.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio administration: collections, fields and relations', () => {
  it('creates a collection, edits its meta, adds, edits and removes fields, relates it, and deletes another', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const api = (method: string, path: string, body?: unknown) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
    await createCollection(service, site, 'authors', [{ field: 'name', type: 'string' }]);
    await createCollection(service, site, 'scratch', [{ field: 'name', type: 'string' }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(studio, adminOf(site), '/studio/admin/collections');
    await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
    await page.getByRole('table', { name: 'Collections' }).getByRole('link', { name: 'authors' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'admin-collections');

    // A name the API refuses: its message at the field.
    const form = page.getByRole('form', { name: 'New collection' });
    await form.getByLabel('Name', { exact: true }).fill('Bad Name!');
    await form.getByRole('button', { name: 'Create collection' }).click();
    await expect.poll(() => form.locator('.field-error').count()).toBeGreaterThan(0);
    await form.getByLabel('Name', { exact: true }).fill('articles');
    await form.getByLabel('Display name').fill('Articles');
    await form.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('heading', { name: 'Collection articles' }).waitFor();
    expect((await api('GET', '/collections/articles')).body.data.displayName).toBe('Articles');

    // Meta.
    const meta = page.getByRole('form', { name: 'Settings' });
    await meta.getByLabel('Display name').fill('News articles');
    await meta.getByLabel('Icon').fill('article');
    await meta.getByLabel('Note').fill('The newsroom’s stories');
    await meta.getByLabel(/Editorial workflow/).check();
    await meta.getByLabel(/Require a reviewer/).check();
    await meta.getByRole('button', { name: 'Save settings' }).click();
    await meta.getByText('Saved').waitFor();
    const collection = (await api('GET', '/collections/articles')).body.data;
    expect(collection).toMatchObject({ displayName: 'News articles', icon: 'article', note: 'The newsroom’s stories' });
    expect(JSON.stringify(collection)).toContain('"editorialWorkflow":true');
    expect(JSON.stringify(collection)).toContain('"requireSeparateReviewer":true');

    // Fields.
    const addField = async (name: string, type: string, widget: string, extra: (dialog: ReturnType<typeof page.getByRole>) => Promise<void> = async () => {}) => {
      await page.getByRole('button', { name: 'Add field' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add a field' });
      await dialog.getByLabel('Field name').fill(name);
      await dialog.getByLabel('Type').selectOption(type);
      await dialog.getByLabel('Interface').fill(widget);
      await extra(dialog);
      await dialog.getByRole('button', { name: 'Add field' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('table', { name: 'Fields' }).getByRole('cell', { name, exact: true }).waitFor();
    };
    await addField('title', 'string', 'input', async (dialog) => {
      await dialog.getByLabel('Required').check();
      await dialog.getByLabel('Sort').fill('1');
    });
    await addField('category', 'string', 'select-dropdown', async (dialog) => {
      await dialog.getByLabel('Choices').fill('news\nsports');
    });
    await addField('author', 'uuid', 'select-dropdown-m2o');
    await expectAccessible(page);
    await screenshot(page, 'admin-collection');
    const title = (await api('GET', '/fields/articles/title')).body.data;
    expect(title).toMatchObject({ field: 'title', type: 'string', interface: 'input', required: true, sort: 1 });
    const category = (await api('GET', '/fields/articles/category')).body.data;
    expect(category.options.choices).toEqual([{ text: 'news', value: 'news' }, { text: 'sports', value: 'sports' }]);

    await page.getByRole('button', { name: 'Edit field title' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit field title' });
    await edit.getByLabel('Interface').fill('textarea');
    await edit.getByLabel('Other options (JSON)').fill('{"placeholder": "Headline"}');
    await expectAccessible(page);
    await edit.getByRole('button', { name: 'Save field' }).click();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(async () => (await api('GET', '/fields/articles/title')).body.data).toMatchObject({ interface: 'textarea', options: { placeholder: 'Headline' } });

    await page.getByRole('button', { name: 'Delete field category' }).click();
    await page.getByRole('table', { name: 'Fields' }).getByRole('cell', { name: 'category', exact: true }).waitFor({ state: 'detached' });
    expect((await api('GET', '/fields/articles/category')).status).toBe(404);

    // An m2o relation to authors.
    const relation = page.getByRole('form', { name: 'New relation' });
    await relation.getByLabel('Kind').selectOption('m2o');
    await relation.getByLabel('Field of this collection').fill('author');
    await relation.getByLabel('Related collection').selectOption('authors');
    await relation.getByLabel('On delete').selectOption('restrict');
    await relation.getByRole('button', { name: 'Create relation' }).click();
    await page.getByRole('table', { name: 'Relations' }).getByRole('cell', { name: 'articles.author', exact: true }).waitFor();
    const relations = (await api('GET', '/relations')).body.data as Record<string, unknown>[];
    expect(relations).toContainEqual(expect.objectContaining({ kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'restrict' }));

    // A soft delete from the list.
    await page.getByRole('link', { name: '← Collections' }).click();
    await page.getByRole('button', { name: 'Delete collection scratch' }).click();
    await page.getByRole('table', { name: 'Collections' }).getByRole('link', { name: 'scratch' }).waitFor({ state: 'detached' });
    expect((await api('GET', '/collections/scratch')).status).toBe(404);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
