// Jobs 3 and 8 of the Studio's content area: an item created with every field kind (markdown and rich
// text previews, numbers, dates, JSON, select, color, translations, m2o pick, file upload with its
// preview), a refusal shown at its field, the save action (stay, return, create_new), If-Match's 412,
// and live updates from another user's API writes in the open list and item, saying who made them.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pngBytes } from '../modules/files/support.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { contentSite, memberWith, seedItems } from '../support/studiocontent.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

/** Counts the realtime subscribe frames the page sent. */
function watchSubscribes(page: Page): () => number {
  let sent = 0;
  page.on('websocket', (socket) => socket.on('framesent', (frame) => {
    if (String(frame.payload).includes('"subscribe"')) sent += 1;
  }));
  return () => sent;
}

describe('the Studio item editor', () => {
  it('creates an item with every field kind, shows a refusal at its field, picks an m2o and uploads a file with a preview', { timeout: 150_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    const [, grace] = await seedItems(api, 'authors', [{ name: 'Ada Lovelace' }, { name: 'Grace Hopper' }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/collections/articles/new');
    await page.getByRole('heading', { name: 'New articles item' }).waitFor();

    await page.getByLabel('Title', { exact: true }).fill('Every kind');
    // Markdown: rendered with marked, sanitized.
    await page.getByLabel('Body', { exact: true }).fill('# Hello\n\n**bold** <script>window.bad = 1</script><img src="x" onerror="window.bad = 1">');
    const bodyPreview = page.getByRole('region', { name: 'Body preview' });
    await bodyPreview.getByRole('heading', { name: 'Hello' }).waitFor();
    expect(await bodyPreview.locator('strong').textContent()).toBe('bold');
    expect(await bodyPreview.locator('script, [onerror]').count()).toBe(0);
    // Rich text: HTML shown sanitized.
    await page.getByLabel('Summary', { exact: true }).fill('<p>Rich <em>text</em></p><a href="javascript:alert(1)">link</a>');
    const summaryPreview = page.getByRole('region', { name: 'Summary preview' });
    await summaryPreview.locator('em').waitFor();
    expect(await summaryPreview.locator('a').getAttribute('href')).toBeNull();

    await page.getByLabel('Rating', { exact: true }).fill('9');
    await page.getByLabel('Score', { exact: true }).fill('2.5');
    await page.getByLabel('Price', { exact: true }).fill('12.30');
    await page.getByLabel('Big', { exact: true }).fill('9007199254740993');
    await page.getByLabel('Published', { exact: true }).check();
    await page.getByLabel('Day', { exact: true }).fill('2025-01-02');
    await page.getByLabel('At', { exact: true }).fill('10:30:15');
    await page.getByLabel('Published At', { exact: true }).fill('2025-01-02T10:30:00');
    const meta = page.getByLabel('Meta', { exact: true });
    await meta.fill('{bad');
    await expect.poll(() => page.getByText(/Not valid JSON/).count()).toBe(1);
    await meta.fill('{"tags": ["a"], "n": 1}');
    await expect.poll(() => page.getByText('Valid JSON').count()).toBe(1);
    await page.getByLabel('Category', { exact: true }).selectOption('blog');
    await page.getByLabel('Tint', { exact: true }).fill('#ff8800');
    // Translations: the default language, and French added.
    await page.getByLabel('Headline (en)').fill('Hello');
    await page.getByLabel('Add a language to Headline').fill('fr');
    await page.getByRole('button', { name: 'Add language' }).click();
    await page.getByLabel('Headline (fr)').fill('Bonjour');
    // m2o: search the authors, pick one.
    await page.getByLabel('Author', { exact: true }).fill('Grace');
    await page.getByRole('button', { name: 'Select Grace Hopper' }).click();
    await expect.poll(() => page.getByText('Selected: Grace Hopper').count()).toBe(1);
    // Files: uploaded through the files API, previewed through /assets as a blob URL.
    await page.getByLabel('Upload a file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: await pngBytes(40, 30) });
    const preview = page.getByRole('img', { name: 'Preview of photo.png' });
    await preview.waitFor();
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => preview.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await expectAccessible(page);
    await screenshot(page, 'content-editor');

    // The service refuses the rating (max 5): shown at the field, nothing created.
    await page.getByRole('button', { name: 'Create' }).click();
    const ratingField = page.locator('.field[data-invalid="true"]', { has: page.getByLabel('Rating', { exact: true }) });
    await expect.poll(() => ratingField.locator('.field-error').textContent()).toBeTruthy();
    expect((await api.admin('GET', '/items/articles')).body.data).toHaveLength(0);
    await page.getByLabel('Rating', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Create' }).click();
    // Save action "stay" (no preference, no site default): the new item opens.
    await expect.poll(() => page.url()).toMatch(/\/studio\/collections\/articles\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').at(-1)!;
    const stored = (await api.admin('GET', `/items/articles/${id}`)).body.data;
    const files = (await api.admin('GET', '/files')).body.data;
    const publishedAt = await page.evaluate(() => new Date('2025-01-02T10:30:00').toISOString());
    expect(stored).toMatchObject({
      title: 'Every kind', rating: 4, score: 2.5, price: '12.30', big: '9007199254740993', published: true, day: '2025-01-02', at: '10:30:15', publishedAt,
      meta: { tags: ['a'], n: 1 }, category: 'blog', tint: '#ff8800', headline: { en: 'Hello', fr: 'Bonjour' }, author: grace!.id, images: [files[0].id],
    });
    expect(stored.body).toContain('# Hello');
    expect(files[0].filename).toBe('photo.png');
    // The edit page links to the item's history; no review without the editorial workflow.
    await page.getByRole('link', { name: 'History' }).waitFor();
    expect(await page.getByRole('link', { name: 'History' }).getAttribute('href')).toBe(`/studio/collections/articles/${id}/history`);
    expect(await page.getByRole('link', { name: 'Review', exact: true }).count()).toBe(0);
    await expect.poll(() => page.getByRole('img', { name: 'Preview of photo.png' }).count()).toBe(1);
    await expectAccessible(page);

    // The author's page lists the articles pointing at them (the o2m side), each a link.
    await page.goto(`/studio/collections/authors/${grace!.id}`);
    await page.getByRole('region', { name: 'articles (articles)' }).getByRole('link', { name: 'Every kind' }).waitFor();
    // With the workflow on, the edit page links to the review too.
    expect((await api.admin('PATCH', '/collections/authors', { editorialWorkflow: true })).status).toBe(200);
    await page.reload();
    await page.getByRole('link', { name: 'Review', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Review', exact: true }).getAttribute('href')).toBe(`/studio/collections/authors/${grace!.id}/review`);
    expectNoProblems(studio);
  });

  it('honours the save action (return, create_new, stay) and shows a 412 when someone else changed the item', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    const [item] = await seedItems(api, 'articles', [{ title: 'First' }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    const title = page.getByLabel('Title', { exact: true });

    expect((await api.admin('PATCH', '/me/preferences', { saveAction: 'return' })).status).toBe(200);
    await signIn(studio, adminOf(site), `/studio/collections/articles/${item!.id}`);
    await expect.poll(() => title.inputValue()).toBe('First');
    await title.fill('Second');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/studio\/collections\/articles$/);
    expect((await api.admin('GET', `/items/articles/${item!.id}`)).body.data.title).toBe('Second');

    expect((await api.admin('PATCH', '/me/preferences', { saveAction: 'create_new' })).status).toBe(200);
    await page.goto(`/studio/collections/articles/${item!.id}`);
    await expect.poll(() => title.inputValue()).toBe('Second');
    await title.fill('Third');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/studio\/collections\/articles\/new$/);
    await expect.poll(() => title.inputValue()).toBe('');
    await title.fill('Made next');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(async () => (await api.admin('GET', '/items/articles?filter[title][_eq]=Made%20next')).body.data.length).toBe(1);
    // Still a blank new form for the next one.
    await expect.poll(() => title.inputValue()).toBe('');
    expect(page.url()).toMatch(/\/new$/);

    expect((await api.admin('PATCH', '/me/preferences', { saveAction: 'stay' })).status).toBe(200);
    await page.goto(`/studio/collections/articles/${item!.id}`);
    await expect.poll(() => title.inputValue()).toBe('Third');
    await title.fill('Fourth');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved.').count()).toBe(1);
    expect(page.url()).toMatch(new RegExp(`/collections/articles/${item!.id}$`));

    // Someone else writes while this form has edits: the save is refused with 412, shown, and reloads.
    await title.fill('Mine');
    expect((await api.admin('PATCH', `/items/articles/${item!.id}`, { title: 'Theirs' })).status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toContainEqual(expect.stringContaining('changed by someone else'));
    await page.getByRole('button', { name: 'Reload', exact: true }).click();
    await expect.poll(() => title.inputValue()).toBe('Theirs');
    expect((await api.admin('GET', `/items/articles/${item!.id}`)).body.data.title).toBe('Theirs');
    expectNoProblems(studio);
  });

  it('shows another user\'s API writes live in the open list and item, saying who made them', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    const [item] = await seedItems(api, 'articles', [{ title: 'Live one' }]);
    const member = await memberWith(api, ['articles'], true);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    const subscribes = watchSubscribes(page);
    await signIn(studio, adminOf(site), '/studio/collections/articles');
    const table = page.getByRole('table', { name: 'articles items' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await expect.poll(subscribes).toBeGreaterThan(0);

    // The member writes through the API until the list has seen it (the subscribe has no acknowledgement).
    let n = 0;
    await expect.poll(async () => {
      n += 1;
      await api.as(member.token, 'PATCH', `/items/articles/${item!.id}`, { title: `Changed by member ${n}` });
      return page.getByText(`Updated by ${member.email} just now`).count();
    }, { timeout: 20_000, interval: 2_000 }).toBeGreaterThan(0);
    await expect.poll(() => table.locator('tbody tr td').first().textContent()).toMatch(/^Changed by member \d+$/);

    const before = subscribes();
    await page.getByRole('link', { name: `Open item ${item!.id}` }).click();
    const title = page.getByLabel('Title', { exact: true });
    await expect.poll(() => title.inputValue()).toMatch(/^Changed by member/);
    await expect.poll(subscribes).toBeGreaterThan(before);
    await expect.poll(async () => {
      n += 1;
      await api.as(member.token, 'PATCH', `/items/articles/${item!.id}`, { title: `Edited live ${n}` });
      return page.getByRole('status').filter({ hasText: `Updated by ${member.email} just now` }).count();
    }, { timeout: 20_000, interval: 2_000 }).toBeGreaterThan(0);
    // The writes have stopped: the open item comes to show the last of them.
    const latest = (await api.admin('GET', `/items/articles/${item!.id}`)).body.data.title;
    expect(latest).toMatch(/^Edited live \d+$/);
    await expect.poll(() => title.inputValue()).toBe(latest);
    await expectAccessible(page);
    await screenshot(page, 'content-live');
    expectNoProblems(studio);
  });
});
