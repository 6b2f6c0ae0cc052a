// Helpers of the identity tests: members, roles, sign-in, and waiting for background mail.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { roleDecider } from '../../../../domain/identity/role.ts';
import { userDecider } from '../../../../domain/identity/user.ts';
import { streamId } from '../../../../domain/shared/events.ts';
import { hashPassword } from '../../../../infra/crypto/passwords.ts';
import { handleCommand } from '../../../../src/runtime/commandHandler.ts';
import type { TestService, TestSite } from '../../../support/testService.ts';

export interface Member {
  userId: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
}

export async function signIn(service: TestService, siteId: string, email: string, password: string, headers: Record<string, string> = {}) {
  return service.request('POST', '/auth/login', { site: siteId, body: { email, password }, headers });
}

/** A user created by the site's administrator (no role unless given) and signed in. */
export async function createMember(service: TestService, site: TestSite, options: { roleId?: string; email?: string } = {}): Promise<Member> {
  const email = options.email ?? `member-${randomUUID().slice(0, 8)}@${site.siteId}.test`;
  const password = 'member password 123';
  const created = await service.request('POST', '/users', {
    site: site.siteId,
    token: site.adminToken,
    body: { email, password, roleId: options.roleId ?? null, firstName: 'Mem', lastName: 'Ber' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const login = await signIn(service, site.siteId, email, password);
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { userId: created.body.data.id, email, password, token: login.body.data.token, refreshToken: login.body.data.refreshToken };
}

/** A role of the site, created through its decider (role routes belong to another area). */
export async function createRole(service: TestService, siteId: string, options: { admin?: boolean; name?: string } = {}): Promise<string> {
  const roleId = randomUUID();
  await handleCommand(service.context, {
    siteId,
    streamId: streamId(siteId, 'role', roleId),
    decider: roleDecider,
    command: { type: 'createRole', roleId, name: options.name ?? `role-${roleId.slice(0, 6)}`, admin: options.admin ?? false },
    metadata: { actor: { kind: 'system', id: 'test' } },
  });
  return roleId;
}

/** Changes a user's password through its decider as the system (no route, no session of its own). */
export async function changePasswordAsSystem(service: TestService, siteId: string, userId: string, newPassword: string): Promise<void> {
  await handleCommand(service.context, {
    siteId,
    streamId: streamId(siteId, 'user', userId),
    decider: userDecider,
    command: { type: 'changePassword', passwordHash: await hashPassword(newPassword), reason: 'change' },
    metadata: { actor: { kind: 'system', id: 'test' } },
  });
}

/** Waits until every mail queued so far has been handed to the SMTP server. */
export function flushMail(service: TestService): Promise<void> {
  return service.context.identity.flushMail();
}

/** The audit actions of a site (after the async audit projection caught up). */
export async function auditActions(service: TestService, site: TestSite, filter = ''): Promise<{ action: string; actor: { kind: string; id: string | null; impersonatorId: string | null }; target: string }[]> {
  await service.context.daemon.drain();
  const response = await service.request('GET', `/audit?limit=200${filter}`, { site: site.siteId, token: site.adminToken });
  expect(response.status).toBe(200);
  return response.body.data;
}
