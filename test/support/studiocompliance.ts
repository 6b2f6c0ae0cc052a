// Seed data of the Studio's compliance tests, made through the HTTP API: a site with a collection
// holding a pii field, a record of it read back decrypted (a field-access log entry), a second site
// administrator and a member without admin rights; and the site's log sealed by a signed checkpoint.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { takeLogCheckpoints } from '../../src/modules/audit/checkpointTask.ts';
import { createCollection } from './contentModel.ts';
import { createTestSite, type TestResponse, type TestService, type TestSite } from './testService.ts';

export interface SiteUserLogin {
  userId: string;
  email: string;
  password: string;
  token: string;
}

export interface ComplianceSite extends TestSite {
  /** A request as `token` (the first administrator's by default). */
  api(method: string, path: string, body?: unknown, token?: string): Promise<TestResponse>;
  /** The `patients` record made by the seed (name and a pii email). */
  patientId: string;
  patientEmail: string;
}

export async function complianceSite(service: TestService): Promise<ComplianceSite> {
  const site = await createTestSite(service, 'stc');
  const api = (method: string, path: string, body?: unknown, token = site.adminToken) =>
    service.request(method, path, { site: site.siteId, token, ...(body === undefined ? {} : { body }) });
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
  ]);
  const patientEmail = `patient-${randomUUID().slice(0, 8)}@example.test`;
  const created = await api('POST', '/items/patients', { name: 'Pat Ient', email: patientEmail });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { ...site, api, patientId: created.body.data.id as string, patientEmail };
}

/** A user of the site with a new role (admin or not), signed in. */
export async function createUser(service: TestService, site: ComplianceSite, admin: boolean): Promise<SiteUserLogin> {
  const role = await site.api('POST', '/roles', { name: `role-${randomUUID().slice(0, 8)}`, admin });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const email = `${admin ? 'admin2' : 'member'}-${randomUUID().slice(0, 8)}@${site.siteId}.test`;
  const password = 'another correct horse 42';
  const user = await site.api('POST', '/users', { email, password, roleId: role.body.data.id, firstName: 'Second', lastName: admin ? 'Admin' : 'Member' });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email, password } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { userId: user.body.data.id as string, email, password, token: login.body.data.token as string };
}

/** Runs the checkpoint task (each run later than the interval) until the site has a signed checkpoint covering its log. */
export async function sealLog(service: TestService, site: ComplianceSite): Promise<void> {
  await service.context.daemon.drain();
  const deadline = Date.now() + 30_000;
  for (let run = 1; Date.now() < deadline; run += 1) {
    await takeLogCheckpoints(service.context, new Date(Date.now() + run * 2 * 3_600_000));
    const verified = await site.api('GET', '/audit/verify');
    if (verified.body.data?.checkpoints?.checked > 0 && verified.body.data.valid === true) return;
  }
  throw new Error('the log was not sealed in time');
}
