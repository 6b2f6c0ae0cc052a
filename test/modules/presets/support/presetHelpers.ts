// Helpers of the presets tests (docs/presets.md): a site with an `articles` collection, members with
// roles (and role chains), presets created over HTTP, and the refusals' checks.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createCollection } from '../../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService } from '../../../support/testService.ts';
import { createMember, withHelpers, type AccessSite, type Member } from '../../access/support.ts';

export type Json = TestResponse['body'];
export type PresetSite = AccessSite;
export type { Member };

/** A fresh site with `articles` (title, views, published). */
export async function createPresetSite(service: TestService, prefix = 'presets'): Promise<PresetSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'views', type: 'integer' },
    { field: 'published', type: 'boolean' },
  ]);
  return site;
}

/** A role of the site (POST /roles), optionally under `parentId`; its id. */
export async function createRole(site: PresetSite, parentId: string | null = null, admin = false): Promise<string> {
  const created = await site.admin('POST', '/roles', { name: `role-${randomUUID().slice(0, 8)}`, ...(parentId ? { parentId } : {}), ...(admin ? { admin } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id;
}

export const member = (site: PresetSite, roleId?: string) => createMember(site.service, site, roleId ? { roleId } : {});

/** POST /presets with `token` (the administrator's when absent): the preset answered (201 expected). */
export async function createPreset(site: PresetSite, body: Record<string, unknown>, token: string = site.adminToken): Promise<Json> {
  const created = await site.as(token, 'POST', '/presets', { collection: 'articles', layout: 'table', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** GET `path` with `token`: the answer's data (200 expected). */
export async function read(site: PresetSite, token: string, path: string): Promise<Json> {
  const found = await site.as(token, 'GET', path);
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  return found.body.data;
}

/** The first error of a refusal, after checking its status and code (and its path when given). */
export function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const [error] = response.body.errors;
  expect(error.code, JSON.stringify(error)).toBe(code);
  if (path) expect(error.path, JSON.stringify(error)).toEqual(path);
  return error;
}

/** The effective default view of `articles` for `token`: its layout and source scope, or null. */
export async function effective(site: PresetSite, token: string): Promise<{ layout: string; sourceScope: string } | null> {
  const data = await read(site, token, '/presets/effective?collection=articles');
  return data === null ? null : { layout: data.layout, sourceScope: data.sourceScope };
}
