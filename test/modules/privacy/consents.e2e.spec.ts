// /me/consents and /me/restriction: the signed-in user's own choices, event-sourced and audited;
// API keys refused; another site never sees them. isProcessingRestricted is the gate of the
// processing a restriction stops.
import { describe, expect, it } from 'vitest';
import { isProcessingRestricted } from '../../../src/modules/privacy/restriction.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember, type Member } from '../access/support.ts';

const service = await startTestServiceForFile();

const as = (site: TestSite, token: string) => ({
  get: (path: string) => service.request('GET', path, { site: site.siteId, token }),
  put: (path: string, body: unknown) => service.request('PUT', path, { site: site.siteId, token, body }),
});

async function siteWithMember(): Promise<{ site: TestSite; member: Member }> {
  const site = await createTestSite(service, 'privacy');
  return { site, member: await createMember(service, site) };
}

async function userKey(site: TestSite, userId: string): Promise<string> {
  const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'k', userId } });
  expect(created.status).toBe(201);
  return created.body.data.key;
}

describe('consents', () => {
  it('are granted and withdrawn, each change recorded with its times, source and version', async () => {
    const { site, member } = await siteWithMember();
    const user = as(site, member.token);
    expect((await user.get('/me/consents')).body).toEqual({ data: [] });

    const granted = await user.put('/me/consents/marketing', { granted: true, source: 'banner', version: '2024-06' });
    expect(granted.status).toBe(200);
    expect(granted.body.data).toMatchObject({ consentType: 'marketing', granted: true, withdrawnAt: null, source: 'banner', version: '2024-06' });
    expect(granted.body.data.grantedAt).toBe(granted.body.data.updatedAt);

    const withdrawn = await user.put('/me/consents/marketing', { granted: false, source: 'settings', version: '2024-06' });
    expect(withdrawn.body.data).toMatchObject({ consentType: 'marketing', granted: false, grantedAt: granted.body.data.grantedAt, source: 'settings' });
    expect(withdrawn.body.data.withdrawnAt).not.toBeNull();

    await user.put('/me/consents/sale_share', { granted: false, source: 'banner', version: '1' });
    const listed = await user.get('/me/consents');
    expect(listed.body.data.map((consent: { consentType: string; granted: boolean }) => [consent.consentType, consent.granted])).toEqual([
      ['marketing', false],
      ['sale_share', false],
    ]);
    expect(listed.body.data[1]).toMatchObject({ grantedAt: null });
  });

  it('write the audit actions consent_granted and consent_withdrawn, once per change', async () => {
    const { site, member } = await siteWithMember();
    const user = as(site, member.token);
    await user.put('/me/consents/analytics', { granted: true, source: 'banner', version: '1' });
    await user.put('/me/consents/analytics', { granted: true, source: 'banner', version: '1' });
    await user.put('/me/consents/analytics', { granted: false, source: 'banner', version: '1' });
    await service.context.daemon.drain();
    const audit = await service.request('GET', '/audit?limit=200', { site: site.siteId, token: site.adminToken });
    const consentEntries = audit.body.data.filter((entry: { action: string }) => entry.action.startsWith('consent_'));
    expect(consentEntries.map((entry: { action: string }) => entry.action).sort()).toEqual(['consent_granted', 'consent_withdrawn']);
    expect(consentEntries[0]).toMatchObject({ actor: { kind: 'user', id: member.userId }, target: `consent/${member.userId}/analytics` });
  });

  it('refuses a consent type outside the five, and a malformed body', async () => {
    const { site, member } = await siteWithMember();
    const user = as(site, member.token);
    const unknown = await user.put('/me/consents/newsletter', { granted: true, source: 'banner', version: '1' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['params', 'type'] });
    for (const body of [{ granted: 'yes', source: 'b', version: '1' }, { granted: true, version: '1' }, { granted: true, source: 'b' }]) {
      const refused = await user.put('/me/consents/functional', body);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].code).toBe('VALIDATION_FAILED');
    }
    for (const type of ['marketing', 'analytics', 'personalization', 'functional', 'sale_share']) {
      expect((await user.put(`/me/consents/${type}`, { granted: true, source: 's', version: '1' })).status).toBe(200);
    }
  });

  it('are for signed-in users only: an API key gets 403, no token 401', async () => {
    const { site, member } = await siteWithMember();
    const key = await userKey(site, member.userId);
    const viaKey = as(site, key);
    expect((await viaKey.get('/me/consents')).status).toBe(403);
    const put = await viaKey.put('/me/consents/marketing', { granted: true, source: 's', version: '1' });
    expect(put.status).toBe(403);
    expect(put.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await service.request('GET', '/me/consents', { site: site.siteId })).status).toBe(401);
  });

  it('are each user’s own, and stay in their site', async () => {
    const { site, member } = await siteWithMember();
    const other = await createMember(service, site);
    await as(site, member.token).put('/me/consents/marketing', { granted: true, source: 's', version: '1' });
    expect((await as(site, other.token).get('/me/consents')).body.data).toEqual([]);
    expect((await as(site, site.adminToken).get('/me/consents')).body.data).toEqual([]);

    const elsewhere = await createTestSite(service, 'privacy');
    expect((await service.request('GET', '/me/consents', { site: elsewhere.siteId, token: member.token })).status).toBe(401);
    expect((await as(elsewhere, elsewhere.adminToken).get('/me/consents')).body.data).toEqual([]);
  });
});

describe('the restriction of processing', () => {
  it('is applied with a reason, read back, and lifted; the gate follows it for every purpose', async () => {
    const { site, member } = await siteWithMember();
    const user = as(site, member.token);
    expect((await user.get('/me/restriction')).body.data).toEqual({ restricted: false, reason: null, restrictedAt: null });

    const applied = await user.put('/me/restriction', { restricted: true, reason: 'I dispute the accuracy' });
    expect(applied.status).toBe(200);
    expect(applied.body.data).toMatchObject({ restricted: true, reason: 'I dispute the accuracy' });
    expect((await user.get('/me/restriction')).body.data).toEqual(applied.body.data);
    for (const purpose of ['marketing_email', 'pageview_attribution', 'ai_processing'] as const) {
      expect(await isProcessingRestricted(service.context, site.siteId, member.userId, purpose)).toBe(true);
      expect(await service.context.database.withSite(site.siteId, (tx) => isProcessingRestricted(tx, site.siteId, member.userId, purpose))).toBe(true);
    }

    const lifted = await user.put('/me/restriction', { restricted: false });
    expect(lifted.body.data).toEqual({ restricted: false, reason: null, restrictedAt: null });
    expect(await isProcessingRestricted(service.context, site.siteId, member.userId, 'marketing_email')).toBe(false);

    await service.context.daemon.drain();
    const audit = await service.request('GET', '/audit?filter[action][_starts_with]=processing_restriction', { site: site.siteId, token: site.adminToken });
    expect(audit.body.data.map((entry: { action: string }) => entry.action)).toEqual(['processing_restriction.lifted', 'processing_restriction.applied']);
  });

  it('refuses a malformed body and API keys', async () => {
    const { site, member } = await siteWithMember();
    for (const body of [{}, { restricted: 'yes' }, { restricted: true, reason: 5 }, { restricted: true, extra: 1 }]) {
      const refused = await as(site, member.token).put('/me/restriction', body);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].code).toBe('VALIDATION_FAILED');
    }
    const key = await userKey(site, member.userId);
    expect((await as(site, key).get('/me/restriction')).status).toBe(403);
    expect((await as(site, key).put('/me/restriction', { restricted: true })).status).toBe(403);
  });

  it('restricts only its user in its site', async () => {
    const { site, member } = await siteWithMember();
    const other = await createMember(service, site);
    await as(site, member.token).put('/me/restriction', { restricted: true });
    expect((await as(site, other.token).get('/me/restriction')).body.data.restricted).toBe(false);
    expect(await isProcessingRestricted(service.context, site.siteId, other.userId, 'ai_processing')).toBe(false);

    const elsewhere = await createTestSite(service, 'privacy');
    expect(await isProcessingRestricted(service.context, elsewhere.siteId, member.userId, 'ai_processing')).toBe(false);
    expect((await as(elsewhere, elsewhere.adminToken).get('/me/restriction')).body.data.restricted).toBe(false);
  });
});
