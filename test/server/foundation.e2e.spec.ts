import { describe, expect, it } from 'vitest';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, uniqueSiteId } from '../support/testService.ts';

const service = await startTestServiceForFile();

describe('instance sites', () => {
  it('creates a site and its administrator can sign in', async () => {
    const site = await createTestSite(service);
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
    expect(me.status).toBe(200);
    expect(me.body.data.email).toBe(site.adminEmail);
  });

  it('refuses a duplicate site id with 409 CONFLICT', async () => {
    const site = await createTestSite(service);
    const again = await service.request('POST', '/instance/sites', {
      token: INSTANCE_TOKEN,
      body: { id: site.siteId, adminEmail: 'x@y.test', adminPassword: 'password123' },
    });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('CONFLICT');
  });

  it('refuses a bad body with VALIDATION_FAILED and a path', async () => {
    const response = await service.request('POST', '/instance/sites', {
      token: INSTANCE_TOKEN,
      body: { id: 'Bad Id!', adminEmail: 'x@y.test', adminPassword: 'password123' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'id'] });
  });

  it('answers 401 without the instance token', async () => {
    const response = await service.request('GET', '/instance/sites', { token: 'wrong-token-wrong-token' });
    expect(response.status).toBe(401);
  });

  it('unknown site gives 404 SITE_NOT_FOUND', async () => {
    const response = await service.request('POST', '/auth/login', { site: uniqueSiteId(), body: { email: 'a@b.c', password: 'x' } });
    expect(response.status).toBe(404);
    expect(response.body.errors[0].code).toBe('SITE_NOT_FOUND');
  });
});
