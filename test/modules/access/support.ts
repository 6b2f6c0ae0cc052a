// Helpers of the access tests: a site with collections and items, members with roles, policies
// with rules attached, and requests on behalf of someone.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import type { TestResponse, TestService, TestSite } from '../../support/testService.ts';
import { createMember, type Member } from '../identity/support/identity.ts';

export type { Member };
export { createMember };

export interface AccessSite extends TestSite {
  /** The service the site lives on. */
  service: TestService;
  /** Sends a request as the site's administrator. */
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** Sends a request with `token` (null: no credentials). */
  as(token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

export function withHelpers(service: TestService, site: TestSite): AccessSite {
  return {
    ...site,
    service,
    admin: (method, path, body) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) }),
    as: (token, method, path, body, headers) =>
      service.request(method, path, { site: site.siteId, token, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) }),
  };
}

/** An `articles` collection (title, body, status, category, rating, author m2o → authors) and `authors` (name, email). */
export async function createContentModel(site: AccessSite): Promise<void> {
  await createCollection(site.service, site, 'authors', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string' },
  ]);
  await createCollection(site.service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'body', type: 'text' },
    { field: 'category', type: 'string' },
    { field: 'rating', type: 'integer' },
    { field: 'author', type: 'uuid' },
  ]);
  await createRelation(site.service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' });
}

/** The created item as the API answered it. */
export type ApiItem = TestResponse['body'];

export async function createItem(site: AccessSite, collection: string, body: Record<string, unknown>, token: string = site.adminToken): Promise<ApiItem> {
  const created = await site.as(token, 'POST', `/items/${collection}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

export async function createRole(site: AccessSite, body: Record<string, unknown> = {}): Promise<ApiItem> {
  const created = await site.admin('POST', '/roles', { name: `role-${randomUUID().slice(0, 8)}`, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

export interface RuleInput {
  collection?: string | null;
  action: string;
  fields?: string[];
  conditions?: Record<string, unknown>;
}

/** A policy with these rules, attached to the target (`{ roleId }`, `{ userId }` or `{ teamId }`). */
export async function grant(site: AccessSite, target: Record<string, string> | null, rules: RuleInput[], name = `policy-${randomUUID().slice(0, 8)}`): Promise<string> {
  const policy = await site.admin('POST', '/policies', { name });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const policyId = policy.body.data.id as string;
  for (const rule of rules) {
    const added = await site.admin('POST', `/policies/${policyId}/permissions`, rule);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
  if (target) {
    const attached = await site.admin('POST', `/policies/${policyId}/attach`, target);
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
  }
  return policyId;
}
