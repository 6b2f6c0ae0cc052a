// Helpers of the skills and approvals tests: a site with articles, members whose roles carry given
// rules, their principals as the skill runner takes them, and skill calls on the test's context.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import type { UserPrincipal } from '../../../src/auth/principal.ts';
import { runSkill } from '../../../src/modules/ai/skillRunner.ts';
import type { AgentIdentity, SkillCallOrigin, SkillOutcome } from '../../../src/modules/ai/skillTypes.ts';
import { createTestSite, type TestService } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type Member, type RuleInput } from '../access/support.ts';

export interface SkillSite extends AccessSite {
  adminPrincipal: UserPrincipal;
}

export interface SkillMember extends Member {
  roleId: string;
  /** The policy that holds the role's rules. */
  policyId: string;
  principal: UserPrincipal;
}

export function personPrincipal(userId: string, roleId: string | null, admin = false): UserPrincipal {
  return { kind: 'user', userId, roleId, admin, sessionId: null, via: 'session', realm: 'studio' };
}

/** A site with `articles` (title, body, category, rating, author) and `authors`. */
export async function createSkillSite(service: TestService, prefix = 'skill'): Promise<SkillSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  await createContentModel(site);
  const me = await site.admin('GET', `/users/${site.adminUserId}`);
  expect(me.status, JSON.stringify(me.body)).toBe(200);
  return { ...site, adminPrincipal: personPrincipal(site.adminUserId, me.body.data.roleId ?? null, true) };
}

/** A member whose role holds exactly `rules`. */
export async function memberWith(site: SkillSite, rules: RuleInput[]): Promise<SkillMember> {
  const role = await createRole(site);
  const policyId = await grant(site, { roleId: role.id }, rules);
  const member = await createMember(site.service, site, { roleId: role.id });
  return { ...member, roleId: role.id, policyId, principal: personPrincipal(member.userId, role.id) };
}

export const testAgent = (id = `conversation:${randomUUID()}`): AgentIdentity => ({ id, role: null });

export function callSkill(
  site: SkillSite,
  principal: UserPrincipal,
  skill: string,
  input: Record<string, unknown>,
  options: { agent?: AgentIdentity; origin?: SkillCallOrigin } = {},
): Promise<SkillOutcome> {
  return runSkill(site.service.context, {
    siteId: site.siteId,
    principal,
    agent: options.agent ?? testAgent(),
    call: { skill, input },
    requestId: randomUUID(),
    ...(options.origin ? { origin: options.origin } : {}),
  });
}

/** The AppError a promise rejects with, as its answer would show it. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; path: (string | number)[] }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, code: error.code, path: error.path };
    throw error;
  }
  throw new Error('expected a refusal');
}

export { createItem };

/** The events of one stream, oldest first, as the log holds them. */
export async function streamEvents(site: SkillSite, stream: string): Promise<{ type: string; metadata: Record<string, any> }[]> {
  const { sql } = await import('../../../infra/postgres/sql.ts');
  return site.service.context.database.withSiteReads(site.siteId, (tx) =>
    tx.query<{ type: string; metadata: Record<string, any> }>(sql`SELECT type, metadata FROM events WHERE stream_id = ${stream} ORDER BY stream_position`),
  );
}
