// Administration, people and keys: a user created, edited (role and status), invited, their sessions
// seen and one revoked, deleted; a duplicate email refused at its field; an API key whose secret is
// shown once and works, then revoked.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio administration: users and API keys', () => {
  it('creates, edits, invites and deletes users, and revokes a session', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const api = (method: string, path: string, body?: unknown) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
    const role = (await api('POST', '/roles', { name: 'Editors' })).body.data as { id: string };
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(studio, adminOf(site), '/studio/admin/users');
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    await page.getByRole('table', { name: 'Users' }).getByRole('cell', { name: site.adminEmail, exact: true }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'admin-users');

    const email = `ed@${site.siteId}.test`;
    const newUser = async (address: string) => {
      await page.getByRole('button', { name: 'New user' }).click();
      const dialog = page.getByRole('dialog', { name: 'New user' });
      await dialog.getByLabel('Email').fill(address);
      await dialog.getByLabel('First name').fill('Ed');
      await dialog.getByLabel('Password').fill('a long enough password 1');
      await dialog.getByLabel('Role').selectOption({ label: 'Editors' });
      await dialog.getByRole('button', { name: 'Create user' }).click();
      return dialog;
    };
    await (await newUser(email)).waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Users' }).getByRole('cell', { name: email, exact: true }).waitFor();
    const users = () => api('GET', '/users').then((response) => response.body.data as { id: string; email: string; roleId: string | null; status: string }[]);
    const created = (await users()).find((user) => user.email === email)!;
    expect(created.roleId).toBe(role.id);

    // The same email again: refused, shown in the dialog.
    const again = await newUser(email);
    await expect.poll(() => again.getByRole('alert').first().textContent()).toBeTruthy();
    await again.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: `Edit user ${email}` }).click();
    const edit = page.getByRole('dialog', { name: `Edit ${email}` });
    await edit.getByLabel('Role').selectOption('');
    await edit.getByLabel('Status').selectOption('suspended');
    await edit.getByRole('button', { name: 'Save user' }).click();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(async () => (await users()).find((user) => user.email === email)).toMatchObject({ roleId: null, status: 'suspended' });

    const invited = `invitee@${site.siteId}.test`;
    await page.getByRole('button', { name: 'Invite by email' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a user' });
    await invite.getByLabel('Email').fill(invited);
    await invite.getByLabel('Role').selectOption({ label: 'Editors' });
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await invite.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Users' }).getByRole('cell', { name: invited, exact: true }).waitFor();
    expect((await users()).find((user) => user.email === invited)).toMatchObject({ status: 'invited', roleId: role.id });

    // The administrator's sessions: the fixture's and this browser's; the fixture's revoked.
    await page.getByRole('button', { name: `Sessions of ${site.adminEmail}` }).click();
    const sessions = page.getByRole('dialog', { name: `Sessions of ${site.adminEmail}` }).getByRole('table').locator('tbody tr');
    await expect.poll(() => sessions.count()).toBe(2);
    await expectAccessible(page);
    await sessions.filter({ hasNotText: 'this browser' }).getByRole('button', { name: /Revoke/ }).click();
    await expect.poll(() => sessions.count()).toBe(1);
    expect((await api('GET', '/collections')).status).toBe(401);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: `Delete user ${email}` }).click();
    await page.getByRole('table', { name: 'Users' }).getByRole('cell', { name: email, exact: true }).waitFor({ state: 'detached' });
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
    const remaining = await service.request('GET', '/users', { site: site.siteId, token: login.body.data.token });
    expect((remaining.body.data as { email: string }[]).map((user) => user.email)).not.toContain(email);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('creates an API key whose secret is shown once, and revokes it', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(studio, adminOf(site), '/studio/admin/api-keys');
    await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
    await expectAccessible(page);
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Key name').fill('');
    await form.getByLabel('Key name').fill('Deploy bot');
    await form.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Key Deploy bot created' });
    const secret = await dialog.getByLabel('Secret key').inputValue();
    expect(secret).toMatch(/^svk_/);
    await dialog.getByRole('button', { name: 'Copy key' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'admin-api-key-secret');
    // The key works.
    expect((await service.request('GET', '/collections', { site: site.siteId, token: secret })).status).toBe(200);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Never shown again: not in the page, nor after a reload.
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Deploy bot/ });
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'admin-api-keys');

    await row.getByRole('button', { name: 'Revoke key Deploy bot' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await service.request('GET', '/collections', { site: site.siteId, token: secret })).status).toBe(401);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
