// Shared by the erasure tests: a site with pii/phi collections and a second administrator, the
// erasure request helper, and the whole-database search for plaintext values.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Database } from '../../../infra/postgres/database.ts';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService } from '../../support/testService.ts';
import { createMember, withHelpers, type AccessSite, type Member } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';

export interface ErasureSite {
  site: AccessSite;
  /** A second site administrator (admin role), the one who confirms. */
  second: Member;
}

/** A site with `patients` (name, city; email pii, diagnosis phi), `notes` (text; contact pii) and a second administrator. */
export async function erasureSite(service: TestService, prefix = 'erase'): Promise<ErasureSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'city', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
  ]);
  await createCollection(service, site, 'notes', [
    { field: 'text', type: 'string' },
    { field: 'contact', type: 'string', sensitivity: 'pii' },
  ]);
  const second = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
  return { site, second };
}

/** A value no other test writes (hex and dashes only: nothing LIKE would read as a wildcard). */
export function unique(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

export function expectError(response: TestResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code, JSON.stringify(response.body)).toBe(code);
}

export async function requestErasure(site: AccessSite, body: Record<string, unknown>, token = site.adminToken) {
  const response = await site.as(token, 'POST', '/admin/erasure', { reason: 'Art. 17 request', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

export async function ok(response: Promise<TestResponse>, status = 200) {
  const result = await response;
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  return result.body.data;
}

/**
 * Every place of the database that holds one of `values` in plaintext: each table of schema public,
 * each column of a text-like type searched as text (ILIKE), each bytea column searched for the
 * value's UTF-8 bytes. The owner connection is not bound by row-level security.
 */
export async function plaintextHits(database: Database, values: readonly string[]): Promise<string[]> {
  const columns = await database.query<{ table_name: string; column_name: string; data_type: string }>(sql`
    SELECT c.table_name, c.column_name, c.data_type
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
       AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'tsvector', 'USER-DEFINED', 'xml', 'bytea')
     ORDER BY c.table_name, c.column_name`);
  const searched = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
  // The search covers the places a value would be: the log, the read models, the sealed store.
  for (const place of ['events.data', 'events.metadata', 'items.data', 'erasure_requests.subject_hash', 'sensitive_values.sealed']) {
    expect(searched, place).toContain(place);
  }
  const hits: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const found = (value: ReturnType<typeof sql>) =>
      type === 'bytea'
        ? sql`position(convert_to(${value}, 'UTF8') in t.${identifier(column)}) > 0`
        : sql`t.${identifier(column)}::text ILIKE '%' || ${value} || '%'`;
    const rows = await database.query<{ value: string }>(sql`
      SELECT v.value FROM unnest(${[...values]}::text[]) AS v(value)
       WHERE EXISTS (SELECT 1 FROM ${identifier(table)} t WHERE ${found(sql`v.value`)})`);
    for (const row of rows) hits.push(`${table}.${column}: ${row.value}`);
  }
  return hits;
}

export async function sealedCount(owner: Database, site: AccessSite, itemIds: readonly string[]): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM sensitive_values WHERE site_id = ${site.siteId} AND item_id = ANY(${[...itemIds]}::text[])`);
  return row!.n;
}

