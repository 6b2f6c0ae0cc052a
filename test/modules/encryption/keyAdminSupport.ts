// Shared by the key administration tests: a site with pii/phi patients, the key and progress
// routes, and the rows of the sensitive value store as the table owner sees them.
import { expect } from 'vitest';
import type pg from 'pg';
import { createTestSite, type TestResponse, type TestService } from '../../support/testService.ts';
import { createCollection } from '../../support/contentModel.ts';
import { withHelpers, type AccessSite } from '../access/support.ts';

export interface KeyView {
  id: string;
  status: 'active' | 'retired' | 'provisioned';
  algorithm: string;
  provisioned: boolean;
  values: number;
}
export interface Progress {
  processed: number;
  remaining: number;
  done: boolean;
}

export function keyAdminHelpers(service: TestService, owner: pg.Client) {
  /** A site with `patients` (name; email pii; diagnosis phi). */
  async function keySite(): Promise<AccessSite> {
    const site = withHelpers(service, await createTestSite(service, 'keys'));
    await createCollection(service, site, 'patients', [
      { field: 'name', type: 'string' },
      { field: 'email', type: 'string', sensitivity: 'pii' },
      { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
    ]);
    return site;
  }

  /** `count` patients in one bulk create, each with an email (and every other one a diagnosis). */
  async function addPatients(site: AccessSite, count: number, prefix = 'p'): Promise<{ id: string; email: string; diagnosis: string | null }[]> {
    const bodies = Array.from({ length: count }, (_, index) => ({
      name: `${prefix}-${index}`,
      email: `${prefix}-${index}@example.test`,
      ...(index % 2 === 0 ? { diagnosis: `diagnosis of ${prefix}-${index}` } : {}),
    }));
    const created = await site.admin('POST', '/items/patients', bodies);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return (created.body.data as { id: string }[]).map((item, index) => ({ id: item.id, email: bodies[index]!.email, diagnosis: bodies[index]!.diagnosis ?? null }));
  }

  /** The number of sealed values `n` patients of addPatients hold. */
  const valuesOf = (count: number) => count + Math.ceil(count / 2);

  async function keys(site: AccessSite): Promise<KeyView[]> {
    const response = await site.admin('GET', '/admin/encryption/keys');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  }

  const keyOf = (list: KeyView[], id: string) => list.find((key) => key.id === id);

  async function rotate(site: AccessSite, keyId: string) {
    return site.admin('POST', '/admin/encryption/keys/rotate', { keyId });
  }

  async function step(site: AccessSite, path: '/admin/encryption/keys/rewrap' | '/admin/encryption/envelope/migrate', limit?: number): Promise<Progress> {
    const response = await site.admin('POST', path, limit === undefined ? undefined : { limit });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  }

  /** Calls `path` with `limit` until done; the progress of each call. */
  async function untilDone(site: AccessSite, path: '/admin/encryption/keys/rewrap' | '/admin/encryption/envelope/migrate', limit: number): Promise<Progress[]> {
    const steps: Progress[] = [];
    for (let call = 0; call < 100; call += 1) {
      const progress = await step(site, path, limit);
      steps.push(progress);
      if (progress.done) return steps;
    }
    throw new Error(`${path} was not done after 100 calls: ${JSON.stringify(steps.at(-1))}`);
  }

  async function sealedRows(siteId: string) {
    const { rows } = await owner.query<{ id: string; key_id: string; data_key: Buffer | null; sealed: Buffer }>(
      'SELECT id, key_id, data_key, sealed FROM sensitive_values WHERE site_id = $1 ORDER BY id',
      [siteId],
    );
    return rows;
  }

  async function countOnKey(siteId: string, keyId: string): Promise<number> {
    const { rows } = await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM sensitive_values WHERE site_id = $1 AND key_id = $2', [siteId, keyId]);
    return rows[0]!.n;
  }

  /** Every patient reads back with its values, one by one and in the list. */
  async function expectValuesRead(site: AccessSite, patients: { id: string; email: string; diagnosis: string | null }[]): Promise<void> {
    for (const patient of patients) {
      const read = await site.admin('GET', `/items/patients/${patient.id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data).toMatchObject({ email: patient.email, diagnosis: patient.diagnosis });
    }
    const list = await site.admin('GET', '/items/patients?limit=100');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const emails = new Map((list.body.data as { id: string; email: string }[]).map((item) => [item.id, item.email]));
    for (const patient of patients) expect(emails.get(patient.id)).toBe(patient.email);
  }

  async function audited(site: AccessSite, action: string) {
    await service.context.daemon.drain();
    const response = await site.admin('GET', `/audit?limit=200&filter[action][_eq]=${action}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data as { action: string; actor: { kind: string; id: string | null }; target: string }[];
  }

  function expectError(response: TestResponse, status: number, code: string): void {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.body.errors[0].code).toBe(code);
  }

  async function envelope(site: AccessSite) {
    const response = await site.admin('GET', '/admin/encryption/envelope');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data as { enabled: boolean; migration: { total: number; migrated: number; remaining: number; done: boolean } };
  }

  async function setEnvelope(site: AccessSite, enabled: boolean, password = site.adminPassword, token = site.adminToken) {
    return site.as(token, 'POST', '/admin/encryption/envelope', { enabled, password });
  }

  async function withoutDataKey(siteId: string): Promise<number> {
    const { rows } = await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM sensitive_values WHERE site_id = $1 AND data_key IS NULL', [siteId]);
    return rows[0]!.n;
  }
  return { keySite, addPatients, valuesOf, keys, keyOf, rotate, step, untilDone, sealedRows, countOnKey, expectValuesRead, audited, expectError, envelope, setEnvelope, withoutDataKey };
}
