// The content model a test builds before it writes items: collections and relations created as the
// site's administrator through the HTTP API. A refusal fails the test at the line that asked.
import { expect } from 'vitest';
import type { TestService, TestSite } from './testService.ts';

/** A field as POST /collections takes it. */
export type FieldInput = { field: string; type: string } & Record<string, unknown>;

export async function createCollection(service: TestService, site: TestSite, name: string, fields: FieldInput[]): Promise<void> {
  const response = await service.request('POST', '/collections', { site: site.siteId, token: site.adminToken, body: { name, fields } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

/** A relation as POST /relations takes it (`kind`, `collection`, `field`, the related side, `onDelete`…). */
export async function createRelation(service: TestService, site: TestSite, relation: Record<string, unknown>): Promise<void> {
  const response = await service.request('POST', '/relations', { site: site.siteId, token: site.adminToken, body: relation });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}
