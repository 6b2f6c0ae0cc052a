// Events of agent governance (docs/agents.md): agent roles (stream `<siteId>/agent-role/<name>`),
// autonomy levels (`<siteId>/agent-autonomy/<role>`) and the requests to raise one
// (`<siteId>/agent-promotion/<id>`), the constitution (`<siteId>/agent-constitution`: its draft, each
// compile, each activated version) and the kill switch's freezes (`<siteId>/agent-freeze/<id>`).
// A leaf beside the deciders: the event catalogue imports it.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

/** How far an agent role may go without a person (src/modules/ai/skillTypes.ts AutonomyLevel), lowest first. */
export const AUTONOMY_LEVELS = ['read', 'stage', 'act'] as const;
export type AutonomyLevelName = (typeof AUTONOMY_LEVELS)[number];
export const PROMOTION_DECISIONS = ['approved', 'rejected'] as const;
export const FREEZE_SCOPES = ['run', 'intent', 'role', 'site'] as const;
export type FreezeScope = (typeof FREEZE_SCOPES)[number];

const agentRoleContent = {
  name: z.string(),
  description: z.string().nullable(),
  skills: z.array(z.string()),
  collections: z.array(z.string()),
};

export const agentRoleEventSchemas = {
  'agent_role.created': z.object(agentRoleContent),
  'agent_role.updated': z.object({ ...agentRoleContent, changed: z.array(z.string()) }),
  'agent_role.deleted': z.object({ name: z.string() }),
};
export type AgentRoleEvent = EventOf<typeof agentRoleEventSchemas>;

export const autonomyEventSchemas = {
  /** A role's level set: by an administrator (promotionId null) or by an approved promotion. */
  'agent_autonomy.set': z.object({ role: z.string(), level: z.enum(AUTONOMY_LEVELS), promotionId: z.string().nullable() }),
  'agent_promotion.requested': z.object({
    promotionId: z.string(),
    role: z.string(),
    level: z.enum(AUTONOMY_LEVELS),
    reason: z.string(),
    requestedBy: z.string().nullable(),
  }),
  'agent_promotion.decided': z.object({
    promotionId: z.string(),
    role: z.string(),
    level: z.enum(AUTONOMY_LEVELS),
    decision: z.enum(PROMOTION_DECISIONS),
    reason: z.string().nullable(),
    decidedBy: z.string().nullable(),
  }),
};
export type AutonomyEvent = EventOf<typeof autonomyEventSchemas>;

/** One compiled line of a constitution (domain/agents/constitution.ts has the language). */
export const constitutionRuleSchema = z.discriminatedUnion('effect', [
  z.object({
    line: z.number().int(),
    text: z.string(),
    effect: z.enum(['allow', 'deny']),
    /** Skill names, `<area>.*` or `*`. */
    skills: z.array(z.string()),
    /** Collection names, or null for any (also a call that names none). */
    collections: z.array(z.string()).nullable(),
    /** Agent role names, or null for any agent (a role-less one included). */
    roles: z.array(z.string()).nullable(),
  }),
  z.object({ line: z.number().int(), text: z.string(), effect: z.literal('max_autonomy'), level: z.enum(AUTONOMY_LEVELS), roles: z.array(z.string()).nullable() }),
]);
export type ConstitutionRule = z.infer<typeof constitutionRuleSchema>;

export const constitutionEventSchemas = {
  'agent_constitution.draft_saved': z.object({ revision: z.number().int(), text: z.string() }),
  /** The draft's revision compiled to these rules (a draft that does not compile records nothing). */
  'agent_constitution.compiled': z.object({ revision: z.number().int(), rules: z.array(constitutionRuleSchema) }),
  'agent_constitution.activated': z.object({ version: z.number().int(), revision: z.number().int(), text: z.string(), rules: z.array(constitutionRuleSchema) }),
};
export type ConstitutionEvent = EventOf<typeof constitutionEventSchemas>;

export const killSwitchEventSchemas = {
  'agent_freeze.engaged': z.object({ freezeId: z.string(), scope: z.enum(FREEZE_SCOPES), target: z.string().nullable(), reason: z.string() }),
  'agent_freeze.lifted': z.object({ freezeId: z.string(), scope: z.enum(FREEZE_SCOPES), target: z.string().nullable(), reason: z.string().nullable() }),
};
export type KillSwitchEvent = EventOf<typeof killSwitchEventSchemas>;

export const agentGovernanceEventSchemas = { ...agentRoleEventSchemas, ...autonomyEventSchemas, ...constitutionEventSchemas, ...killSwitchEventSchemas };
