// Helpers of the agent governance tests (docs/agents.md): a site with its administrator's calls,
// members and API keys with or without a capability, and refusals checked by status, code and path.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createTestSite, type TestResponse, type TestService } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';

export type AgentSite = AccessSite;
type Json = TestResponse['body'];

export async function createAgentSite(service: TestService, prefix = 'agents'): Promise<AgentSite> {
  return withHelpers(service, await createTestSite(service, prefix));
}

/** The answer's data, after checking its status. */
export async function ok(site: AgentSite, method: string, path: string, status: number, body?: unknown, token: string = site.adminToken): Promise<Json> {
  const response = await site.as(token, method, path, body);
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status);
  return response.body?.data;
}

/** The first error of a refusal, after checking its status and code (and its path when given). */
export function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const [error] = response.body.errors;
  expect(error.code, JSON.stringify(error)).toBe(code);
  if (path) expect(error.path, JSON.stringify(error)).toEqual(path);
  return error;
}

/** A signed-in member of a plain role holding `capabilities` (none: a member with no rights). */
export async function memberWith(site: AgentSite, capabilities: string[] = []): Promise<{ token: string; userId: string; roleId: string }> {
  const role = await createRole(site);
  if (capabilities.length > 0) await grant(site, { roleId: role.id }, capabilities.map((action) => ({ action, collection: null })));
  const member = await createMember(site.service, site, { roleId: role.id });
  return { token: member.token, userId: member.userId, roleId: role.id };
}

/** An API key bound to a role (admin or not): an agent's credential. */
export async function roleKey(site: AgentSite, options: { admin?: boolean; capabilities?: string[] } = {}): Promise<string> {
  const role = await createRole(site, { name: `keys-${randomUUID().slice(0, 8)}`, admin: options.admin ?? false });
  if (options.capabilities?.length) await grant(site, { roleId: role.id }, options.capabilities.map((action) => ({ action, collection: null })));
  const created = await site.admin('POST', '/api-keys', { name: 'agent', roleId: role.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.key;
}

/** POST /agent/roles as the administrator; the role answered. */
export function createAgentRole(site: AgentSite, body: Record<string, unknown>): Promise<Json> {
  return ok(site, 'POST', '/agent/roles', 201, { skills: ['items.*'], collections: ['*'], ...body });
}
