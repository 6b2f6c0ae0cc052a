// The shapes of the constitution's routes (docs/agents.md "Constitution").
import { z } from 'zod';
import { CONSTITUTION_LIMITS } from '../../../domain/agents/constitution.ts';
import { AUTONOMY_LEVELS, constitutionRuleSchema } from '../../../domain/agents/governanceEvents.ts';

export const saveDraftBody = z
  .object({
    text: z
      .string()
      .max(CONSTITUTION_LIMITS.characters)
      .refine((text) => text.split(/\r?\n/).length <= CONSTITUTION_LIMITS.lines, `at most ${CONSTITUTION_LIMITS.lines} lines`),
  })
  .strict();

export const dryRunBody = z
  .object({ skill: z.string().min(1).max(200), collection: z.string().max(64).nullish(), role: z.string().max(64).nullish() })
  .strict();
export type DryRunBody = z.infer<typeof dryRunBody>;
/** `?version=`: the draft (default), the active version, or a version's number. */
export const dryRunQuery = z.object({ version: z.union([z.enum(['draft', 'active']), z.coerce.number().int().min(1).max(2_147_483_647)]).default('draft') });

export const draftSchema = z.object({
  text: z.string(),
  revision: z.number(),
  /** Whether this revision compiled (activate needs it). */
  compiled: z.boolean(),
  /** The rules of this revision's compile, null until it compiled. */
  rules: z.array(constitutionRuleSchema).nullable(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string(),
  compiledAt: z.string().nullable(),
});
export type DraftView = z.infer<typeof draftSchema>;

export const versionSchema = z.object({
  version: z.number(),
  text: z.string(),
  rules: z.array(constitutionRuleSchema),
  draftRevision: z.number(),
  activatedBy: z.string().nullable(),
  activatedAt: z.string(),
});
export type VersionView = z.infer<typeof versionSchema>;

export const constitutionSchema = z.object({ active: versionSchema.nullable(), draft: draftSchema.nullable() });

export const dryRunSchema = z.object({
  source: z.enum(['draft', 'version']),
  /** The version the call was checked against, null for the draft. */
  version: z.number().nullable(),
  decision: z.enum(['allow', 'deny']),
  /** The first allow or deny rule that matched, null for none (allowed). */
  rule: z.object({ line: z.number(), text: z.string(), effect: z.enum(['allow', 'deny']) }).nullable(),
  /** The lowest `max autonomy` of the matching rules, null for none. */
  maxAutonomy: z.enum(AUTONOMY_LEVELS).nullable(),
});
export type DryRunView = z.infer<typeof dryRunSchema>;
