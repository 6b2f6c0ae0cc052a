// Administration, access: roles with a parent, a policy with a filtered read rule attached to a role,
// a refused rule shown at its field, the role's preview (per collection and action, and which items it
// may read); and a non-administrator who sees no Administration section and is refused its URLs.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio administration: roles, policies and their preview', () => {
  it('creates roles and a policy with a filtered rule, attaches it, and previews what the role can see', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const api = (method: string, path: string, body?: unknown) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }, { field: 'state', type: 'string' }]);
    for (const [title, state] of [['Published story', 'published'], ['Draft story', 'draft']]) {
      expect((await api('POST', '/items/articles', { title, state })).status).toBe(201);
    }
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(studio, adminOf(site), '/studio/admin/roles');
    await page.getByRole('heading', { name: 'Roles', exact: true }).waitFor();

    const newRole = async (name: string, parent?: string) => {
      await page.getByRole('button', { name: 'New role' }).click();
      const dialog = page.getByRole('dialog', { name: 'New role' });
      await dialog.getByLabel('Role name').fill(name);
      if (parent) await dialog.getByLabel('Parent role').selectOption({ label: parent });
      await dialog.getByRole('button', { name: 'Create role' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('table', { name: 'Roles' }).getByRole('cell', { name, exact: true }).waitFor();
    };
    await newRole('Editors');
    await newRole('Juniors', 'Editors');
    const roles = (await api('GET', '/roles')).body.data as { id: string; name: string; parentId: string | null }[];
    const editors = roles.find((role) => role.name === 'Editors')!;
    expect(roles.find((role) => role.name === 'Juniors')?.parentId).toBe(editors.id);
    await expectAccessible(page);
    await screenshot(page, 'admin-roles');

    // A policy, its rules (one refused at its field), attached to Editors.
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Policies' }).click();
    const create = page.getByRole('form', { name: 'New policy' });
    await create.getByLabel('Policy name').fill('Read published');
    await create.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('table', { name: 'Policies' }).getByRole('link', { name: 'Read published' }).click();
    await page.getByRole('heading', { name: 'Policy Read published' }).waitFor();
    const rule = page.getByRole('form', { name: 'New rule' });
    await rule.getByLabel('Rule collection').selectOption('articles');
    await rule.getByLabel('Action').fill('frobnicate');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => rule.locator('.field-error, .alert').first().textContent()).toMatch(/frobnicate|action/i);
    await rule.getByLabel('Action').fill('read');
    await rule.getByLabel('Filter (JSON)').fill('{"state": {"_eq": "published"}}');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('table', { name: 'Permission rules' }).getByRole('cell', { name: 'read', exact: true }).waitFor();
    await page.getByLabel('Attach to').selectOption({ label: 'Editors' });
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    await page.getByRole('list', { name: 'Attachments' }).getByText('Role Editors').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'admin-policy');
    const policies = (await api('GET', '/policies')).body.data as { id: string; name: string; attachments: { roles: string[] } }[];
    const policy = policies.find((entry) => entry.name === 'Read published')!;
    expect(policy.attachments.roles).toEqual([editors.id]);
    const rules = (await api('GET', `/policies/${policy.id}/permissions`)).body.data;
    expect(rules).toEqual([expect.objectContaining({ collection: 'articles', action: 'read', conditions: { state: { _eq: 'published' } } })]);

    // The preview of Editors: read allowed with a filter, nothing else; one of the two items readable.
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('button', { name: 'Preview role Editors' }).click();
    const preview = page.getByRole('table', { name: 'Permissions of Editors' });
    const row = preview.getByRole('row', { name: /^articles/ });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('1 of 2: Published story');
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['denied', 'allowedfiltered', 'denied', 'denied']);
    await expectAccessible(page);
    await screenshot(page, 'admin-role-preview');
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('hides the Administration section from a non-administrator and refuses its URLs', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const role = await service.request('POST', '/roles', { site: site.siteId, token: site.adminToken, body: { name: 'Writers' } });
    expect(role.status).toBe(201);
    const user = await service.request('POST', '/users', {
      site: site.siteId,
      token: site.adminToken,
      body: { email: `writer@${site.siteId}.test`, password: 'a long enough password 1', roleId: role.body.data.id },
    });
    expect(user.status).toBe(201);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: `writer@${site.siteId}.test`, password: 'a long enough password 1' }, '/studio/account');
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Studio' });
    expect(await nav.getByText('Administration').count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Roles' }).count()).toBe(0);
    for (const path of ['/studio/admin/roles', '/studio/admin/api-keys', '/studio/admin/config']) {
      await page.goto(path);
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Only site administrators');
    }
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await expectAccessible(page);
    // The API refuses them too.
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: `writer@${site.siteId}.test`, password: 'a long enough password 1' } });
    expect((await service.request('GET', '/roles', { site: site.siteId, token: login.body.data.token })).status).toBe(403);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
