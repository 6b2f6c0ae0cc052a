// The shapes of agent roles: what the routes and commands take, and what they answer (docs/agents.md).
import { z } from 'zod';

/** An agent role's name: a slug, unique per site. */
export const AGENT_ROLE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const roleName = z.string().regex(AGENT_ROLE_NAME, 'a slug: lowercase letters, digits, - and _, at most 64');
const skillPattern = z.string().min(1).max(200);
const collectionName = z.string().regex(/^(\*|[A-Za-z0-9_][A-Za-z0-9_-]{0,63})$/, 'a collection name or *');

export const createAgentRoleBody = z
  .object({
    name: roleName,
    description: z.string().max(2000).nullish(),
    /** Skill names, `<area>.*` or `*`. */
    skills: z.array(skillPattern).max(200),
    /** Collection names, or `*` for every collection. */
    collections: z.array(collectionName).max(200),
  })
  .strict();
export type CreateAgentRoleBody = z.infer<typeof createAgentRoleBody>;

export const updateAgentRoleBody = z
  .object({ description: z.string().max(2000).nullable().optional(), skills: z.array(skillPattern).max(200).optional(), collections: z.array(collectionName).max(200).optional() })
  .strict();
export type UpdateAgentRoleBody = z.infer<typeof updateAgentRoleBody>;

export const agentRoleSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  skills: z.array(z.string()),
  collections: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
