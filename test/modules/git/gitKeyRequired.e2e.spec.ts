// A git integration's secrets are sealed with the site's active key: when this service holds no bytes
// of that key (the key ring lost it), connecting or re-tokening answers 400 ENCRYPTION_KEY_REQUIRED
// and writes nothing.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';

const database = await createFreshDatabaseForFile();
const withKey = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')},k2:${randomBytes(32).toString('base64')}` });
const withoutKey = await startTestServiceForFile({ DATABASE_URL: database.url });

describe('git integration secrets without the site key', () => {
  it('answers ENCRYPTION_KEY_REQUIRED at the secret’s path, and writes nothing', async () => {
    const site = await createTestSite(withKey, 'gitkey');
    const rotated = await withKey.request('POST', '/admin/encryption/keys/rotate', { site: site.siteId, token: site.adminToken, body: { keyId: 'k2' } });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const call = (body: unknown) => withoutKey.request('POST', '/integrations/git', { site: site.siteId, token: site.adminToken, body });

    const withToken = await call({ provider: 'github', repoFullName: 'acme/site', token: 'ghp_secret_token_value' });
    expect(withToken.status, JSON.stringify(withToken.body)).toBe(400);
    expect(withToken.body.errors[0]).toMatchObject({ code: 'ENCRYPTION_KEY_REQUIRED', path: ['body', 'token'] });
    const appOnly = await call({ provider: 'github', repoFullName: 'acme/site', authMethod: 'app' });
    expect(appOnly.body.errors[0]).toMatchObject({ code: 'ENCRYPTION_KEY_REQUIRED', path: ['body'] });
    const events = await database.owner.query(sql`SELECT 1 FROM events WHERE site_id = ${site.siteId} AND type LIKE 'git_%'`);
    expect(events).toEqual([]);
    // The service that holds the key connects it.
    const connected = await withKey.request('POST', '/integrations/git', { site: site.siteId, token: site.adminToken, body: { provider: 'github', repoFullName: 'acme/site', token: 'ghp_secret_token_value' } });
    expect(connected.status).toBe(201);
  });
});
