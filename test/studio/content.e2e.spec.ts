// Job 2 of the Studio's content area: collections, the items table driven through the UI (columns,
// filter rows, sort, paging, full-text search), view presets applied on reload, bookmarks saved and
// loaded, and a member without read permission who neither sees a collection nor may open it.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { contentSite, memberWith, seedItems } from '../support/studiocontent.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

const CATEGORIES = ['news', 'blog', 'howto'];
const articles = Array.from({ length: 30 }, (_, i) => ({
  title: i === 7 ? 'Zebra crossings explained' : `Article ${String(i).padStart(2, '0')}`,
  rating: i % 6,
  category: CATEGORIES[i % 3],
  published: i % 2 === 0,
}));

describe('the Studio content list', () => {
  it('lists collections, and items with chosen columns, filter rows, sort, paging and search', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    await seedItems(api, 'articles', articles);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    const itemRequests: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/v1/items/articles') itemRequests.push(url);
    });
    await signIn(studio, adminOf(site));

    // The overview at / lists the collections with their counts.
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
    const overview = page.getByRole('table', { name: 'Collections' });
    await expect.poll(() => overview.getByRole('row', { name: /articles/ }).textContent()).toContain('30');
    await expectAccessible(page);
    await screenshot(page, 'content-collections');

    await overview.getByRole('link', { name: 'articles' }).click();
    const table = page.getByRole('table', { name: 'articles items' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.getByRole('status').textContent()).toBe('Items 1–25 of 30');
    // Only the visible columns are asked for, 25 at a time.
    const first = itemRequests.at(-1)!;
    expect(first.searchParams.get('fields')).toBe('id,title,body,summary,rating');
    expect(first.searchParams.get('limit')).toBe('25');
    expect(first.searchParams.get('meta')).toBe('total_count');
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('status').textContent()).toBe('Items 26–30 of 30');
    await expect.poll(() => rows.count()).toBe(5);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => rows.count()).toBe(25);

    // Columns: drop body and summary, add category.
    await page.getByText(/^Columns/).click();
    await page.getByRole('checkbox', { name: 'body' }).uncheck();
    await page.getByRole('checkbox', { name: 'summary' }).uncheck();
    await page.getByRole('checkbox', { name: 'category' }).check();
    await expect.poll(() => table.locator('thead th').allTextContents()).toEqual(['title ', 'rating ', 'category ', 'Open']);
    await expect.poll(() => itemRequests.at(-1)!.searchParams.get('fields')).toBe('id,title,rating,category');

    // Sort by rating: ascending, then descending.
    const ratingHeader = table.getByRole('columnheader', { name: /rating/ });
    await ratingHeader.getByRole('button').click();
    await expect.poll(() => ratingHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => rows.first().locator('td').nth(1).textContent()).toBe('0');
    await ratingHeader.getByRole('button').click();
    await expect.poll(() => ratingHeader.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(() => rows.first().locator('td').nth(1).textContent()).toBe('5');
    expect(itemRequests.at(-1)!.searchParams.get('sort')).toBe('-rating');

    // Filters: category is blog and rating at least 3 (combined with _and, sent as the JSON filter).
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('category');
    await page.getByLabel('Filter 1 operator').selectOption({ label: 'equals' });
    await page.getByLabel('Filter 1 value').fill('blog');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 2 field').selectOption('rating');
    await page.getByLabel('Filter 2 operator').selectOption({ label: 'at least' });
    await page.getByLabel('Filter 2 value').fill('3');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const expected = articles.filter((article) => article.category === 'blog' && article.rating >= 3);
    await expect.poll(() => rows.count()).toBe(expected.length);
    const sent = itemRequests.at(-1)!;
    expect(JSON.parse(sent.searchParams.get('filter')!)).toEqual({ _and: [{ category: { _eq: 'blog' } }, { rating: { _gte: 3 } }] });
    // A filtered list asks for no total (a count over every match at scale): next/previous paging.
    expect(sent.searchParams.get('meta')).toBe('none');
    const apiAnswer = await api.admin('GET', `/items/articles?filter=${encodeURIComponent(sent.searchParams.get('filter')!)}&fields=title`);
    expect((await table.locator('tbody tr td:first-child').allTextContents()).sort()).toEqual(apiAnswer.body.data.map((item: { title: string }) => item.title).sort());
    expect(await pager.getByRole('status').textContent()).toBe(`Items 1–${expected.length}`);
    await expectAccessible(page);
    await screenshot(page, 'content-items');

    // Full-text search (an async read model: wait until the service finds it, then search in the UI).
    await expect.poll(async () => (await api.admin('GET', '/search?collection=articles&q=zebra')).body.data?.length, { timeout: 20_000 }).toBe(1);
    await page.getByLabel('Search articles').fill('zebra');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hits = page.getByRole('list', { name: 'Search results' });
    await expect.poll(() => hits.getByRole('link').allTextContents()).toEqual(['Zebra crossings explained']);
    await hits.getByRole('link', { name: 'Zebra crossings explained' }).click();
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Zebra crossings explained');
    expectNoProblems(studio);
  });

  it('saves the view as a default preset applied on reload, and a bookmark loaded later; a refusal shows', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    await seedItems(api, 'articles', articles);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/collections/articles');
    const table = page.getByRole('table', { name: 'articles items' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(25);
    await expect.poll(() => page.getByText('No saved default view').count()).toBe(1);

    // A view: title and rating, sorted by -rating, 10 per page, filtered on news.
    await page.getByText(/^Columns/).click();
    for (const name of ['body', 'summary']) await page.getByRole('checkbox', { name }).uncheck();
    await table.getByRole('columnheader', { name: /rating/ }).getByRole('button').click();
    await table.getByRole('columnheader', { name: /rating/ }).getByRole('button').click();
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('category');
    await page.getByLabel('Filter 1 value').fill('news');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(10);

    // Saved as the user's default view: stored, and applied after a reload with its source scope.
    await page.getByRole('button', { name: 'Save as default view' }).click();
    await expect.poll(() => page.getByText('Saved as your default view.').count()).toBe(1);
    await expect.poll(() => page.getByText('Showing the user default view.').count()).toBe(1);
    const stored = await api.admin('GET', '/presets?collection=articles');
    expect(stored.body.data).toHaveLength(1);
    expect(stored.body.data[0]).toMatchObject({ scope: 'user', bookmark: null, query: { fields: ['title', 'rating'], sort: ['-rating'], limit: 10, filter: { category: { _eq: 'news' } } } });
    await page.reload();
    await expect.poll(() => page.getByText('Showing the user default view.').count()).toBe(1);
    await expect.poll(() => table.locator('thead th').allTextContents()).toEqual(['title ', 'rating ▼', 'Open']);
    await expect.poll(() => table.getByRole('columnheader', { name: /rating/ }).getAttribute('aria-sort')).toBe('descending');
    await expect.poll(() => page.getByLabel('Filter 1 value').inputValue()).toBe('news');
    expect(await page.getByLabel('Per page').inputValue()).toBe('10');
    await expectAccessible(page);
    await screenshot(page, 'content-presets');

    // A bookmark: only ratings 5, saved by name, then loaded after changing the view.
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('rating');
    await page.getByLabel('Filter 1 value').fill('5');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(5);
    await page.getByLabel('Bookmark name').fill('Top rated');
    await page.getByRole('button', { name: 'Save bookmark' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Load Top rated' }).count()).toBe(1);
    const bookmarks = await api.admin('GET', '/presets/bookmarks?collection=articles');
    expect(bookmarks.body.data.map((preset: { bookmark: string; query: unknown }) => [preset.bookmark, preset.query])).toEqual([['Top rated', expect.objectContaining({ filter: { rating: { _eq: 5 } } })]]);
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(10);
    await page.getByRole('button', { name: 'Load Top rated' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(5);
    expect(new Set(await table.locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set(['5']));

    // A bookmark name the service refuses (over 200 characters) is shown at the field.
    await page.getByLabel('Bookmark name').fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Save bookmark' }).click();
    await expect.poll(() => page.locator('#bookmark-error').textContent()).toMatch(/200/);

    // An administrator saves a global default: a member without their own preset gets it.
    await page.getByLabel('Save for').selectOption('global');
    await page.getByRole('button', { name: 'Save as default view' }).click();
    await expect.poll(() => page.getByText("Saved as everyone's default view.").count()).toBe(1);
    const member = await memberWith(api, ['articles']);
    const memberStudio = await openStudio(chromium(), service);
    await signIn(memberStudio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/collections/articles');
    await expect.poll(() => memberStudio.page.getByText('Showing the global default view.').count()).toBe(1);
    // The member may save for themselves only.
    expect(await memberStudio.page.getByLabel('Save for').locator('option').allTextContents()).toEqual(['Me']);
    expectNoProblems(memberStudio);
    await memberStudio.context.close();
    expectNoProblems(studio);
  });

  it('hides a collection a member may not read, and shows the refusal when they open it', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'content');
    const api = await contentSite(service, site);
    await seedItems(api, 'secrets', [{ code: 'classified' }]);
    const member = await memberWith(api, ['articles', 'authors']);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: member.email, password: member.password });
    const overview = page.getByRole('table', { name: 'Collections' });
    await expect.poll(() => overview.getByRole('link').allTextContents()).toEqual(['articles', 'authors']);
    await page.goto('/studio/collections/secrets');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/PERMISSION_DENIED|FORBIDDEN|NOT_FOUND/);
    expect(await page.getByRole('table', { name: 'secrets items' }).count()).toBe(0);
    await expectAccessible(page);
    expectNoProblems(studio);
  });
});
