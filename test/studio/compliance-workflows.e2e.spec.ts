// Studio, job 10 (compliance), second part: an erasure requested by one administrator, refused to them
// for confirmation, confirmed by a second administrator and executed; a compliance report asked for,
// followed until it is completed and read; consents and restriction changed and shown.
import { describe, expect, it } from 'vitest';
import { complianceSite, createUser } from '../support/studiocompliance.ts';
import { startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio compliance: erasure, reports, consent', () => {
  it('erases under dual control: requested by A, refused to A, confirmed by B, executed', { timeout: 120_000 }, async () => {
    const site = await complianceSite(service);
    const second = await createUser(service, site, true);

    const studioA = await openStudio(chromium(), service);
    const a = studioA.page;
    await signIn(studioA, adminOf(site), '/studio/compliance/erasure');
    await a.getByRole('heading', { name: 'Erasure requests' }).waitFor();
    await a.getByText('No erasure has been requested.').waitFor();
    await expectAccessible(a);

    // An empty filter is refused by the service, at the field.
    await a.getByLabel('Collection').selectOption('patients');
    await a.getByLabel('Subject filter (JSON)').fill('{}');
    await a.getByLabel('Reason').fill('Art. 17 request of the patient');
    await a.getByRole('button', { name: 'Request erasure' }).click();
    await expect.poll(() => a.locator('.field-error').textContent()).toContain('empty filter would erase the whole collection');
    expect((await site.api('GET', '/admin/erasure')).body.meta.total).toBe(0);

    await a.getByLabel('Subject filter (JSON)').fill(JSON.stringify({ email: { _eq: site.patientEmail } }));
    await a.getByRole('button', { name: 'Request erasure' }).click();
    const table = a.getByRole('table', { name: 'Erasure requests' });
    const row = table.locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('Requested: waiting for a second administrator');
    expect(await row.textContent()).toContain('1 matched');
    const listed = await site.api('GET', '/admin/erasure');
    expect(listed.body.data).toHaveLength(1);
    const erasureId = listed.body.data[0].id as string;
    expect(listed.body.data[0]).toMatchObject({ status: 'requested', collection: 'patients', requestedBy: site.adminUserId, matchedCount: 1 });

    // A cannot confirm their own request: the UI says so, and the service refuses it.
    const confirmA = row.getByRole('button', { name: 'Confirm' });
    expect(await confirmA.isDisabled()).toBe(true);
    expect(await row.textContent()).toContain('You requested this erasure: another administrator must confirm it.');
    const refused = await site.api('POST', `/admin/erasure/${erasureId}/confirm`);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect(await row.getByRole('button', { name: /Execute/ }).count()).toBe(0);
    await expectAccessible(a);
    await screenshot(a, 'compliance-erasure');
    expectNoProblems(studioA);
    await studioA.context.close();

    // B confirms, then executes.
    const studioB = await openStudio(chromium(), service);
    const b = studioB.page;
    await signIn(studioB, { siteId: site.siteId, email: second.email, password: second.password }, '/studio/compliance/erasure');
    const rowB = b.getByRole('table', { name: 'Erasure requests' }).locator('tbody tr').first();
    await expect.poll(() => rowB.textContent()).toContain(site.adminEmail);
    await rowB.getByRole('button', { name: /Confirm erasure in patients/ }).click();
    await expect.poll(() => rowB.textContent()).toContain('Confirmed: ready to execute');
    expect(await rowB.textContent()).toContain(second.email);
    expect((await site.api('GET', `/admin/erasure/${erasureId}`)).body.data).toMatchObject({ status: 'confirmed', confirmedBy: second.userId });

    await rowB.getByRole('button', { name: /Execute erasure in patients/ }).click();
    await expect.poll(() => rowB.textContent()).toContain('Executed');
    await expect.poll(() => rowB.textContent()).toContain('1 erased');
    const executed = (await site.api('GET', `/admin/erasure/${erasureId}`)).body.data;
    expect(executed).toMatchObject({ status: 'executed', recordCount: 1, executedBy: second.userId });
    expect((await site.api('GET', `/items/patients/${site.patientId}`)).status).toBe(404);

    await rowB.getByRole('button', { name: /Receipt of erasure/ }).click();
    const receipt = b.getByLabel('Receipt', { exact: true });
    await expect.poll(() => receipt.textContent()).toContain(erasureId);
    expect(await receipt.textContent()).toContain('signature');
    await expectAccessible(b);
    await b.getByRole('button', { name: 'Close receipt' }).click();
    expectNoProblems(studioB);
    await studioB.context.close();
  });

  it('asks for a compliance report, shows it queued then completed, and shows its content', { timeout: 120_000 }, async () => {
    const site = await complianceSite(service);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/compliance/reports');
    await page.getByRole('heading', { name: 'Compliance reports' }).waitFor();

    // A period that ends before it starts is refused at its field.
    await page.getByLabel('From').fill('2030-01-02T00:00');
    await page.getByLabel('To', { exact: true }).fill('2030-01-01T00:00');
    await page.getByRole('button', { name: 'Request report' }).click();
    await expect.poll(() => page.locator('.field-error').textContent()).toContain('`to` must be later than `from`');
    expect((await site.api('GET', '/reports')).body.meta.total).toBe(0);

    const now = new Date();
    const local = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('From').fill(local(new Date(now.getTime() - 86_400_000)));
    await page.getByLabel('To', { exact: true }).fill(local(new Date(now.getTime() + 3_600_000)));
    await page.getByLabel('Collections').fill('patients');
    await page.getByRole('button', { name: 'Request report' }).click();
    const row = page.getByRole('table', { name: 'Compliance reports' }).locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toMatch(/queued|running|completed/);
    await expect.poll(() => row.textContent(), { timeout: 60_000 }).toContain('completed');
    const reports = await site.api('GET', '/reports');
    expect(reports.body.data).toHaveLength(1);
    expect(reports.body.data[0]).toMatchObject({ status: 'completed', params: { collections: ['patients'], format: 'json' } });
    expect(await row.textContent()).toContain(`${reports.body.data[0].entries} entries`);
    await expectAccessible(page);
    await screenshot(page, 'compliance-reports');

    await row.getByRole('button', { name: /View report/ }).click();
    const content = page.getByLabel('Report content');
    await expect.poll(() => content.textContent()).toContain(site.patientId);
    await page.getByRole('button', { name: 'Close report' }).click();
    await row.getByRole('button', { name: /Download report/ }).click();
    const save = row.getByRole('link', { name: 'Save file' });
    await save.waitFor();
    expect(await save.getAttribute('href')).toMatch(/^blob:/);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('changes the user’s own consents and restriction, and shows the site’s to an administrator', { timeout: 120_000 }, async () => {
    const site = await complianceSite(service);
    const member = await createUser(service, site, false);
    const given = await site.api('PUT', '/me/consents/analytics', { granted: true, source: 'signup form', version: '3' }, member.token);
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect((await site.api('PUT', '/me/restriction', { restricted: true, reason: 'disputed accuracy' }, member.token)).status).toBe(200);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/compliance/consent');
    await page.getByRole('heading', { name: 'Consent and restriction', exact: true }).waitFor();
    await page.getByRole('table', { name: 'Your consents' }).waitFor();
    await page.getByLabel('Version of the terms you answer').fill('2');
    await page.getByRole('button', { name: 'Grant Marketing consent' }).click();
    await page.getByRole('button', { name: 'Withdraw Marketing consent' }).waitFor();
    const mine = (await site.api('GET', '/me/consents')).body.data;
    expect(mine).toEqual([expect.objectContaining({ consentType: 'marketing', granted: true, source: 'studio', version: '2' })]);

    await page.getByLabel('Reason (optional)').fill('objection');
    await page.getByRole('button', { name: 'Restrict processing' }).click();
    await page.getByText(/Processing of your data is restricted since .* \(objection\)/).waitFor();
    expect((await site.api('GET', '/me/restriction')).body.data).toMatchObject({ restricted: true, reason: 'objection' });

    // The site's records, from the audit log once it has caught up.
    await service.context.daemon.drain();
    await page.reload();
    const bySubject = page.getByRole('table', { name: 'Consent and restriction by user' });
    const memberRow = bySubject.getByRole('row', { name: new RegExp(member.email) });
    await expect.poll(() => memberRow.textContent()).toContain('Granted');
    expect(await memberRow.textContent()).toContain('Restricted');
    const adminRow = bySubject.getByRole('row', { name: new RegExp(site.adminEmail) });
    await expect.poll(() => adminRow.textContent()).toContain('Restricted');
    await expectAccessible(page);
    await screenshot(page, 'compliance-consent');

    await page.getByLabel('User', { exact: true }).selectOption({ label: member.email });
    await expect.poll(() => bySubject.locator('tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Lift the restriction' }).click();
    await page.getByText('Processing of your data is not restricted.').waitFor();
    expect((await site.api('GET', '/me/restriction')).body.data.restricted).toBe(false);
    expectNoProblems(studio);
    await studio.context.close();

    // The member sees and changes their own, and not the site's.
    const memberStudio = await openStudio(chromium(), service);
    await signIn(memberStudio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/compliance/consent');
    const memberPage = memberStudio.page;
    await memberPage.getByRole('button', { name: 'Withdraw Analytics consent' }).click();
    await memberPage.getByRole('button', { name: 'Grant Analytics consent' }).waitFor();
    expect((await site.api('GET', '/me/consents', undefined, member.token)).body.data[0]).toMatchObject({ consentType: 'analytics', granted: false });
    expect(await memberPage.getByRole('table', { name: 'Consent and restriction by user' }).count()).toBe(0);
    await expectAccessible(memberPage);
    expectNoProblems(memberStudio);
    await memberStudio.context.close();
  });
});
