// The shapes of the kill switch's routes (docs/agents.md "Kill switch").
import { z } from 'zod';
import { FREEZE_SCOPES } from '../../../domain/agents/governanceEvents.ts';

/** The capability that engages and lifts freezes (administrators hold every capability). */
export const FREEZE_CAPABILITY = 'agents:freeze';

export const freezeBody = z
  .object({
    scope: z.enum(FREEZE_SCOPES),
    /** The run id, intent id or agent role name; absent (or null) for the whole site. */
    target: z.string().trim().min(1).max(200).nullish(),
    reason: z.string().trim().min(1).max(2000),
  })
  .strict();
export type FreezeBody = z.infer<typeof freezeBody>;

export const liftBody = z.object({ freezeId: z.string().max(100), reason: z.string().max(2000).nullish() }).strict();
export type LiftBody = z.infer<typeof liftBody>;

export const freezeSchema = z.object({
  id: z.string(),
  scope: z.enum(FREEZE_SCOPES),
  target: z.string().nullable(),
  reason: z.string(),
  frozenBy: z.string().nullable(),
  frozenAt: z.string(),
  liftedBy: z.string().nullable(),
  liftedAt: z.string().nullable(),
  liftReason: z.string().nullable(),
});
export type FreezeView = z.infer<typeof freezeSchema>;
