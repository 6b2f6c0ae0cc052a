// A site's own collection types: `svc types` (from the database) and the SDK's siteTypes(client)
// (over the API) write the same text, and it is the fixture checked in beside the SDK, which the
// type tests (types/itemQueries.typetest.ts) compile against.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSvcClient, siteTypes } from '../../sdk/src/index.ts';
import { cliEnvironment, runCli } from '../cli/runCli.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { createSdkModel } from './support.ts';

const service = await startTestServiceForFile();
const FIXTURE = new URL('../../sdk/test/fixtures/siteCollections.ts', import.meta.url);

describe('site types', () => {
  it('are written the same by svc types and by siteTypes(client), and match the SDK’s fixture', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'sdk');
    await createSdkModel(service, site);
    const client = createSvcClient({ baseUrl: new URL(service.url).origin, site: site.siteId });
    await client.auth.login(site.adminEmail, site.adminPassword);
    const fromApi = await siteTypes(client);
    const fromCli = await runCli(['types', '--site', site.siteId], cliEnvironment({}));
    expect(fromCli.code, fromCli.stderr).toBe(0);
    expect(fromCli.stdout).toBe(fromApi);
    // The fixture names its site "fixture"; the test's site has a fresh id.
    expect(fromApi.replaceAll(site.siteId, 'fixture')).toBe(readFileSync(FIXTURE, 'utf8'));
  });

  it('refuses an unknown site from the command line and a member who may not read the schema through the API', { timeout: 60_000 }, async () => {
    const missing = await runCli(['types', '--site', 'no-such-site'], cliEnvironment({}));
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('Site no-such-site not found');
    const site = await createTestSite(service, 'sdk');
    const anonymous = createSvcClient({ baseUrl: new URL(service.url).origin, site: site.siteId });
    await expect(siteTypes(anonymous)).rejects.toMatchObject({ status: 401 });
  });
});
