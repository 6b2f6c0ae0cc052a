// Helpers of the agent work tests (goals, staged actions, notifications): a site with articles and
// authors, a member whose role holds given rules, and a bounded wait on a read model.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { TestService } from '../../support/testService.ts';
import { createContentModel, createMember, createRole, grant, type RuleInput } from '../access/support.ts';
import { createAgentSite, ok, type AgentSite } from './gateSupport.ts';

export async function createWorkSite(service: TestService, prefix = 'work'): Promise<AgentSite> {
  const site = await createAgentSite(service, prefix);
  await createContentModel(site);
  return site;
}

/** A signed-in member whose role holds exactly `rules`. */
export async function memberWithRules(site: AgentSite, rules: RuleInput[]): Promise<{ token: string; userId: string }> {
  const role = await createRole(site);
  if (rules.length > 0) await grant(site, { roleId: role.id }, rules);
  const member = await createMember(site.service, site, { roleId: role.id });
  return { token: member.token, userId: member.userId };
}

/** Reads until `done` holds (polling a read model), at most `timeoutMs`; the last value read. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(25);
    value = await read();
  }
  expect(done(value), `waited ${timeoutMs} ms for: ${JSON.stringify(value)}`).toBe(true);
  return value;
}

/** A goal as its read model holds it, until its status is one of `statuses`. */
export function goalReaching(site: AgentSite, goalId: string, statuses: string[], token: string = site.adminToken) {
  return until(
    () => ok(site, 'GET', `/agent/goals/${goalId}`, 200, undefined, token),
    (goal) => statuses.includes(goal.status),
  );
}
