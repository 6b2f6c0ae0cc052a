// Helpers of the translation memory tests: a site with its administrator's and a member's calls,
// entries and terms created over HTTP, and refusals checked by status, code and path.
import { expect } from 'vitest';
import { createTestSite, type TestResponse, type TestService } from '../../../support/testService.ts';
import { createMember, withHelpers, type AccessSite, type Member } from '../../access/support.ts';

export type Json = TestResponse['body'];

export interface TmSite extends AccessSite {
  member: Member;
  /** Sends a request as the site's member (no role: a translator, not an administrator). */
  asMember(method: string, path: string, body?: unknown): Promise<TestResponse>;
}

export async function createTmSite(service: TestService, prefix = 'tm'): Promise<TmSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  const member = await createMember(service, site);
  return { ...site, member, asMember: (method, path, body) => site.as(member.token, method, path, body) };
}

/** POST /tm as the member; the answered entry (status checked: 201 new, 200 updated). */
export async function saveEntry(site: TmSite, body: Record<string, unknown>, status = 201): Promise<Json> {
  const saved = await site.asMember('POST', '/tm', { sourceLang: 'en', targetLang: 'de', ...body });
  expect(saved.status, JSON.stringify(saved.body)).toBe(status);
  return saved.body.data;
}

export async function lookup(site: TmSite, query: string, options: Record<string, unknown> = {}): Promise<Json> {
  const found = await site.asMember('POST', '/tm/lookup', { query, sourceLang: 'en', targetLang: 'de', ...options });
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  return found.body.data.match;
}

export async function addTerm(site: TmSite, body: Record<string, unknown>): Promise<Json> {
  const created = await site.admin('POST', '/tm/glossary', { sourceLang: 'en', targetLang: 'de', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** The first error of a refusal, after checking its status and code (and its path when given). */
export function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const [error] = response.body.errors;
  expect(error.code, JSON.stringify(error)).toBe(code);
  if (path) expect(error.path, JSON.stringify(error)).toEqual(path);
  return error;
}
