// Studio, job 10 (compliance), first part: the audit log filtered through the UI, the log verified
// against its signed checkpoints with a pass shown, the field-access log listing a read of a pii field,
// and a member who is not an administrator refused.
import { describe, expect, it } from 'vitest';
import { complianceSite, createUser, sealLog } from '../support/studiocompliance.ts';
import { startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio compliance: audit, verification, field-access log', () => {
  it('filters the audit log by action and actor, with paging and details', { timeout: 90_000 }, async () => {
    const site = await complianceSite(service);
    const changed = await site.api('PATCH', `/items/patients/${site.patientId}`, { name: 'Pat Changed' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await service.context.daemon.drain();
    const expected = await site.api('GET', `/audit?filter=${encodeURIComponent(JSON.stringify({ action: { _eq: 'item.updated' } }))}`);
    expect(expected.status).toBe(200);
    expect(expected.body.meta.total).toBe(1);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/compliance/audit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const rows = page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(1);
    await expectAccessible(page);
    await screenshot(page, 'compliance-audit');

    await page.getByLabel('Action').fill('item.updated');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('item.updated');
    expect(await rows.first().textContent()).toContain(site.adminEmail);
    await expect.poll(() => page.getByText('Page 1 of 1 (1 entry)').count()).toBe(1);

    await page.getByRole('button', { name: /Details of item.updated/ }).click();
    await expect.poll(() => page.getByText(expected.body.data[0].eventId).count()).toBe(1);

    // A prefix and the actor: every item.* entry of the administrator, none of another action.
    await page.getByLabel('Action').fill('item.*');
    await page.getByLabel('Actor').selectOption({ label: site.adminEmail });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const items = await site.api('GET', `/audit?filter=${encodeURIComponent(JSON.stringify({ action: { _starts_with: 'item.' }, actor: { _eq: site.adminUserId } }))}`);
    await expect.poll(() => page.getByText(`Page 1 of 1 (${items.body.meta.total} entries)`).count()).toBe(1);
    for (const text of await page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr td:nth-child(2)').allTextContents()) expect(text).toMatch(/^item\./);

    // A range that ends before anything happened: nothing.
    await page.getByLabel('To', { exact: true }).fill('2001-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entry matches these filters.').waitFor();
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('verifies the log against its signed checkpoints and shows a pass with what was checked', { timeout: 90_000 }, async () => {
    const site = await complianceSite(service);
    await sealLog(service, site);
    const verified = await site.api('GET', '/audit/verify');
    expect(verified.body.data.valid).toBe(true);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/compliance/verify');
    await page.getByRole('heading', { name: 'Verify the log' }).waitFor();
    await page.getByRole('table', { name: 'Signed checkpoints' }).waitFor();
    await page.getByRole('button', { name: 'Verify the log' }).click();
    const result = page.getByRole('status', { name: 'Verification result' });
    await result.waitFor();
    await expect.poll(() => result.textContent()).toContain('Passed: the log is intact');
    const checked = page.getByRole('table', { name: 'What was checked' });
    const cell = (name: string) => checked.getByRole('row', { name: new RegExp(name) }).locator('td').textContent();
    expect(Number(await cell('Events checked'))).toBeGreaterThanOrEqual(verified.body.data.eventsChecked);
    expect(await cell('Hash chains')).toBe('Every link holds');
    expect(Number(await cell('Checkpoints checked'))).toBeGreaterThanOrEqual(1);
    expect(await cell('Last checkpoint')).toMatch(/^#\d+/);
    expect(await cell('Checkpoint signatures')).toBe('Valid');
    await expectAccessible(page);
    await screenshot(page, 'compliance-verify');
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('lists the reads of pii fields in the field-access log, filtered by record', { timeout: 90_000 }, async () => {
    const site = await complianceSite(service);
    const read = await site.api('GET', `/items/patients/${site.patientId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.email).toBe(site.patientEmail);
    // A second record, read too, that the record filter leaves out.
    const other = await site.api('POST', '/items/patients', { name: 'Other', email: 'other@example.test' });
    await site.api('GET', `/items/patients/${other.body.data.id}`);
    await expect
      .poll(async () => (await site.api('GET', `/admin/field-access-log?filter=${encodeURIComponent(JSON.stringify({ itemId: { _eq: site.patientId } }))}`)).body.meta.total, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/compliance/access-log');
    await page.getByRole('heading', { name: 'Field-access log' }).waitFor();
    const table = page.getByRole('table', { name: 'Field reads' });
    await table.waitFor();
    await expectAccessible(page);
    await screenshot(page, 'compliance-access-log');

    await page.getByLabel('Record id').fill(site.patientId);
    await page.getByLabel('Collection').selectOption('patients');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const rows = table.locator('tbody tr');
    await expect.poll(async () => (await rows.allTextContents()).every((text) => text.includes(site.patientId))).toBe(true);
    const first = (await rows.first().textContent()) ?? '';
    expect(first).toContain(site.adminEmail);
    expect(first).toContain('patients');
    expect(first).toContain('email');
    expect(first).toContain('pii');
    // Never the value.
    expect(await page.content()).not.toContain(site.patientEmail);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('refuses a member who is not an administrator: no compliance controls, the API says 403', { timeout: 90_000 }, async () => {
    const site = await complianceSite(service);
    const member = await createUser(service, site, false);
    expect((await site.api('GET', '/audit', undefined, member.token)).status).toBe(403);
    expect((await site.api('GET', '/admin/erasure', undefined, member.token)).status).toBe(403);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/compliance/audit');
    await page.getByText('This screen is for site administrators.').waitFor();
    const nav = page.getByRole('navigation', { name: 'Studio' });
    expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Erasure requests' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Consent and restriction' }).count()).toBe(1);
    for (const path of ['erasure', 'verify', 'reports', 'access-log']) {
      await page.goto(`/studio/compliance/${path}`);
      await page.getByText('This screen is for site administrators.').waitFor();
      expect(await page.getByRole('button', { name: /Request|Verify the log|Apply filters/ }).count()).toBe(0);
    }
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
