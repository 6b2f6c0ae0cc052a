// Events of the access context (policies, their permission rules and attachments): the zod schema
// of each event's data, and the event types inferred from them. The event store checks every event
// it reads against these (domain/shared/eventCatalogue.ts).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const ATTACHMENT_KINDS = ['role', 'user', 'team'] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

const attachmentTargetSchema = z.object({ kind: z.enum(ATTACHMENT_KINDS), id: z.string() });
export type AttachmentTarget = z.infer<typeof attachmentTargetSchema>;

export const policyChangesSchema = z.object({ name: z.string().optional(), description: z.string().nullable().optional() });
export type PolicyChanges = z.infer<typeof policyChangesSchema>;

/** A rule as a policy stores it (domain/access/permissionRule.ts says what it may say). */
const permissionRuleShape = {
  /** null for capabilities. */
  collection: z.string().nullable(),
  action: z.string(),
  /** Field names, or ['*']; empty for capabilities. */
  fields: z.array(z.string()),
  /** A filter tree over the collection's items; null = every row. */
  conditions: z.record(z.string(), z.unknown()).nullable(),
};

export const policyEventSchemas = {
  'policy.created': z.object({ policyId: z.string(), name: z.string(), description: z.string().nullable() }),
  'policy.updated': z.object({ policyId: z.string(), changes: policyChangesSchema }),
  'policy.deleted': z.object({ policyId: z.string() }),
  'policy.permission_added': z.object({ policyId: z.string(), permissionId: z.string(), ...permissionRuleShape }),
  'policy.permission_removed': z.object({ policyId: z.string(), permissionId: z.string() }),
  'policy.attached': z.object({ policyId: z.string(), target: attachmentTargetSchema }),
  'policy.detached': z.object({ policyId: z.string(), target: attachmentTargetSchema }),
};
export type PolicyEvent = EventOf<typeof policyEventSchemas>;

export const POLICY_EVENT_TYPES = [
  'policy.created',
  'policy.updated',
  'policy.deleted',
  'policy.permission_added',
  'policy.permission_removed',
  'policy.attached',
  'policy.detached',
] as const;

/** Every event type of the access context with the schema of its data. */
export const accessEventSchemas = { ...policyEventSchemas };
