// Graceful shutdown: a request in flight when the service is asked to stop still gets its answer.
import { describe, expect, it } from 'vitest';
import { startService } from '../../src/boot/service.ts';
import { testConfig, uniqueSiteId } from '../support/testService.ts';

describe('stopping the service', () => {
  it('lets a request in flight finish with 200, then refuses new connections', async () => {
    const siteId = uniqueSiteId('stop');
    const credentials = { email: `admin@${siteId}.test`, password: 'a long enough password' };
    const service = await startService(
      testConfig({ SVC_BOOTSTRAP_SITE: siteId, SVC_BOOTSTRAP_ADMIN_EMAIL: credentials.email, SVC_BOOTSTRAP_ADMIN_PASSWORD: credentials.password }),
    );
    // Stop as soon as the login (argon2 verification, then a session append) has reached the server.
    let stopping: Promise<void> | null = null;
    service.server.server.once('request', () => {
      stopping = service.stop();
    });
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-site': siteId },
      body: JSON.stringify(credentials),
    });
    expect(login.status).toBe(200);
    expect((await login.json()).data.token).toEqual(expect.any(String));
    expect(stopping).not.toBeNull();
    await stopping;
    await expect(fetch(`${service.url}/api/v1/utils/health`)).rejects.toThrow();
  });
});
