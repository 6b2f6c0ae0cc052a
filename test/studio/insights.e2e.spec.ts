// Job 11 of the Studio: dashboards (create, rename, delete), panels added, edited and removed through
// the panel form, each panel's query run through the API and drawn as an SVG chart whose values (and
// the table beside it) are the data's; a refused query shown at its field; a member reads but does not edit.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { createArticles, createInsightsSite, memberWith, seedArticles } from '../modules/insights/support.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

async function fillPanel(page: Page, panel: { name: string; type: string; collection: string; aggregate: string; field?: string; groupBy?: string }) {
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Panel name').fill(panel.name);
  await dialog.getByLabel('Drawn as').selectOption(panel.type);
  await dialog.getByLabel('Collection').fill(panel.collection);
  await dialog.getByLabel('Aggregate').selectOption(panel.aggregate);
  await dialog.getByLabel('Field', { exact: true }).fill(panel.field ?? '');
  await dialog.getByLabel('Group by').fill(panel.groupBy ?? '');
}

describe('the Studio: dashboards', () => {
  it('creates and renames a dashboard, adds two panels whose charts show the data, edits and removes a panel, deletes the dashboard', { timeout: 120_000 }, async () => {
    const site = await createInsightsSite(service, 'sins');
    await createArticles(site);
    await seedArticles(site);
    const admin = { site: site.siteId, token: site.adminToken };
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(studio, adminOf(site), '/studio/dashboards');
    await page.getByRole('heading', { name: 'Dashboards' }).waitFor();
    await expect.poll(() => page.getByText('No dashboards yet.').count()).toBe(1);

    // Create, and a refused (empty) name shown at its field.
    await page.getByLabel('Dashboard name').fill('   ');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await expect.poll(() => page.locator('.field-error').first().textContent()).toBeTruthy();
    await page.getByLabel('Dashboard name').fill('Editorial');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await page.getByRole('link', { name: 'Editorial' }).waitFor();
    const listed = await service.request('GET', '/dashboards', admin);
    expect(listed.body.data.map((dashboard: any) => dashboard.name)).toEqual(['Editorial']);
    const dashboardId = listed.body.data[0].id as string;
    await expectAccessible(page);
    await screenshot(page, 'insights-dashboards');

    // Rename in the dialog.
    await page.getByRole('button', { name: 'Rename Editorial' }).click();
    await page.getByRole('dialog').getByLabel('Dashboard name').fill('Editorial stats');
    await page.getByRole('dialog').getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('link', { name: 'Editorial stats' }).waitFor();
    expect((await service.request('GET', `/dashboards/${dashboardId}`, admin)).body.data.name).toBe('Editorial stats');

    // Two panels: a count per category (bars) and the sum of views (one number).
    await page.getByRole('link', { name: 'Editorial stats' }).click();
    await page.getByRole('heading', { name: 'Editorial stats', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add panel' }).click();
    await fillPanel(page, { name: 'Articles by category', type: 'bar', collection: 'articles', aggregate: 'count', groupBy: 'category' });
    await page.getByRole('dialog').getByRole('button', { name: 'Add panel' }).click();
    const byCategory = page.getByRole('table', { name: 'Articles by category values' });
    await byCategory.waitFor();
    expect(await byCategory.locator('tbody tr').allTextContents()).toEqual(['news3', 'sport2']);
    expect(await page.getByRole('img', { name: /^Articles by category:/ }).getAttribute('aria-label')).toBe('Articles by category: news 3, sport 2');
    expect(await page.locator('svg.insights-chart rect.insights-chart-bar').count()).toBe(2);

    // A field that is not one of the collection's is refused at the field, and nothing is added.
    await page.getByRole('button', { name: 'Add panel' }).first().click();
    await fillPanel(page, { name: 'Total views', type: 'metric', collection: 'articles', aggregate: 'sum', field: 'nope' });
    await page.getByRole('dialog').getByRole('button', { name: 'Add panel' }).click();
    await expect.poll(() => page.getByRole('dialog').locator('.field-error').first().textContent()).toContain('INVALID_FIELD');
    expect((await service.request('GET', `/dashboards/${dashboardId}/panels`, admin)).body.data).toHaveLength(1);
    await expectAccessible(page);
    await page.getByRole('dialog').getByLabel('Field', { exact: true }).fill('views');
    await page.getByRole('dialog').getByRole('button', { name: 'Add panel' }).click();
    await page.getByLabel('Total views: 80').waitFor();

    const panels = (await service.request('GET', `/dashboards/${dashboardId}/panels`, admin)).body.data;
    expect(panels.map((panel: any) => [panel.name, panel.type, panel.query])).toEqual([
      ['Articles by category', 'bar', { collection: 'articles', aggregate: 'count', groupBy: ['category'] }],
      ['Total views', 'metric', { collection: 'articles', aggregate: 'sum', field: 'views' }],
    ]);
    await expectAccessible(page);
    await screenshot(page, 'insights-dashboard');

    // Edit: the sum of views per category; the chart follows.
    await page.getByRole('button', { name: 'Edit Total views' }).click();
    await page.getByRole('dialog').getByLabel('Panel name').fill('Views by category');
    await page.getByRole('dialog').getByLabel('Drawn as').selectOption('bar');
    await page.getByRole('dialog').getByLabel('Group by').fill('category');
    await page.getByRole('dialog').getByLabel('Filter (JSON)').fill('{"views": {"_gte": 10}}');
    await page.getByRole('dialog').getByRole('button', { name: 'Save panel' }).click();
    const byViews = page.getByRole('table', { name: 'Views by category values' });
    await byViews.waitFor();
    expect(await byViews.locator('tbody tr').allTextContents()).toEqual(['news60', 'sport15']);
    const data = await service.request('POST', `/dashboards/${dashboardId}/panels/${panels[1].id}/data`, admin);
    expect(data.body.data).toEqual([{ category: 'news', value: 60 }, { category: 'sport', value: 15 }]);

    // Remove a panel, then the dashboard.
    await page.getByRole('button', { name: 'Remove Articles by category' }).click();
    await expect.poll(async () => (await service.request('GET', `/dashboards/${dashboardId}/panels`, admin)).body.data.length).toBe(1);
    await expect.poll(() => byCategory.count()).toBe(0);
    await page.getByRole('link', { name: '← All dashboards' }).click();
    await page.getByRole('button', { name: 'Delete Editorial stats' }).click();
    await expect.poll(() => page.getByText('No dashboards yet.').count()).toBe(1);
    expect((await service.request('GET', `/dashboards/${dashboardId}`, admin)).status).toBe(404);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('shows a member the charts with their own permissions but no controls to change them', { timeout: 90_000 }, async () => {
    const site = await createInsightsSite(service, 'sinm');
    await createArticles(site);
    await seedArticles(site);
    const created = await service.request('POST', '/dashboards', { site: site.siteId, token: site.adminToken, body: { name: 'Shared' } });
    const dashboardId = created.body.data.id as string;
    await service.request('POST', `/dashboards/${dashboardId}/panels`, {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'Per category', type: 'bar', position: { x: 0, y: 0, width: 6, height: 4 }, query: { collection: 'articles', aggregate: 'count', groupBy: ['category'] } },
    });
    // The member may read sport articles only.
    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'], conditions: { category: { _eq: 'sport' } } }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: member.email, password: member.password }, `/studio/dashboards/${dashboardId}`);
    const table = page.getByRole('table', { name: 'Per category values' });
    await table.waitFor();
    expect(await table.locator('tbody tr').allTextContents()).toEqual(['sport2']);
    expect(await page.getByRole('button', { name: 'Add panel' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Edit Per category' }).count()).toBe(0);
    await page.getByRole('link', { name: '← All dashboards' }).click();
    await page.getByRole('link', { name: 'Shared' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create dashboard' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete Shared' }).count()).toBe(0);
    // The service refuses the member's write all the same.
    const refused = await service.request('PATCH', `/dashboards/${dashboardId}`, { site: site.siteId, token: member.token, body: { name: 'Mine' } });
    expect(refused.status).toBe(403);
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
