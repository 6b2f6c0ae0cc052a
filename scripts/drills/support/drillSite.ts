// A site for a drill, set up over HTTP as a user would: created through the instance API, its
// administrator signed in, collections, members with a role, policies attached.
import { randomBytes } from 'node:crypto';
import { must, type Json } from './http.ts';
import { DRILL_INSTANCE_TOKEN } from './serviceInstance.ts';

export interface DrillSite {
  siteId: string;
  adminEmail: string;
  adminToken: string;
  adminUserId: string;
}

export const DRILL_PASSWORD = 'drill password 0123456789';

export async function signIn(base: string, siteId: string, email: string, password = DRILL_PASSWORD): Promise<{ token: string; userId: string }> {
  const login = await must(base, 'POST', '/auth/login', { site: siteId, body: { email, password } });
  return { token: login.data.token, userId: login.data.user.id };
}

export async function createDrillSite(base: string, prefix: string): Promise<DrillSite> {
  const siteId = `${prefix}-${randomBytes(4).toString('hex')}`;
  const adminEmail = `admin@${siteId}.drill`;
  await must(base, 'POST', '/instance/sites', { token: DRILL_INSTANCE_TOKEN, body: { id: siteId, adminEmail, adminPassword: DRILL_PASSWORD } });
  const { token, userId } = await signIn(base, siteId, adminEmail);
  return { siteId, adminEmail, adminToken: token, adminUserId: userId };
}

/** Calls as the site's administrator; a status other than 2xx throws. */
export function asAdmin(base: string, site: DrillSite) {
  return (method: string, path: string, body?: unknown): Promise<Json> => must(base, method, path, { site: site.siteId, token: site.adminToken, body });
}

/** A collection of string `title`, integer `n` and text `body` fields (plus whatever `extra` adds). */
export async function createCollection(base: string, site: DrillSite, name: string, extra: { field: string; type: string }[] = []): Promise<void> {
  await asAdmin(base, site)('POST', '/collections', {
    name,
    fields: [{ field: 'title', type: 'string' }, { field: 'n', type: 'integer' }, { field: 'body', type: 'text' }, ...extra],
  });
}

export interface Member {
  userId: string;
  email: string;
  token: string;
}

/** A user of the site holding `roleId`, signed in. */
export async function createMember(base: string, site: DrillSite, roleId: string, label: string): Promise<Member> {
  const email = `${label}-${randomBytes(3).toString('hex')}@${site.siteId}.drill`;
  const created = await asAdmin(base, site)('POST', '/users', { email, password: DRILL_PASSWORD, roleId, firstName: 'Drill', lastName: label });
  const { token } = await signIn(base, site.siteId, email);
  return { userId: created.data.id, email, token };
}

export async function createRole(base: string, site: DrillSite, name: string): Promise<string> {
  return (await asAdmin(base, site)('POST', '/roles', { name: `${name}-${randomBytes(3).toString('hex')}` })).data.id;
}

/** A policy holding `rules`, attached to `target` ({ roleId } or { userId }) unless null. */
export async function createPolicy(
  base: string,
  site: DrillSite,
  rules: { collection: string | null; action: string; fields?: string[]; conditions?: unknown }[],
  target: Record<string, string> | null,
): Promise<string> {
  const admin = asAdmin(base, site);
  const policyId = (await admin('POST', '/policies', { name: `drill-${randomBytes(4).toString('hex')}` })).data.id as string;
  for (const rule of rules) await admin('POST', `/policies/${policyId}/permissions`, rule);
  if (target) await admin('POST', `/policies/${policyId}/attach`, target);
  return policyId;
}

export async function publicRoleId(base: string, site: DrillSite): Promise<string> {
  const roles = await asAdmin(base, site)('GET', '/roles');
  return roles.data.find((role: { systemKey: string | null }) => role.systemKey === 'public').id;
}
