// The shapes of autonomy levels and promotion requests (docs/agents.md "Autonomy").
import { z } from 'zod';
import { AUTONOMY_LEVELS, PROMOTION_DECISIONS } from '../../../domain/agents/governanceEvents.ts';

export const PROMOTION_STATUSES = ['pending', 'approved', 'rejected'] as const;

export const setAutonomyBody = z.object({ level: z.enum(AUTONOMY_LEVELS) }).strict();
export const requestPromotionBody = z.object({ role: z.string().min(1).max(64), level: z.enum(AUTONOMY_LEVELS), reason: z.string().trim().min(1).max(2000) }).strict();
export type RequestPromotionBody = z.infer<typeof requestPromotionBody>;
export const decidePromotionBody = z.object({ decision: z.enum(PROMOTION_DECISIONS), reason: z.string().max(2000).nullish() }).strict();
export type DecidePromotionBody = z.infer<typeof decidePromotionBody>;

export const autonomySchema = z.object({
  role: z.string(),
  level: z.enum(AUTONOMY_LEVELS),
  /** The approved promotion that set it, null when an administrator set it (or it was never set). */
  promotionId: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type AutonomyView = z.infer<typeof autonomySchema>;

export const promotionSchema = z.object({
  id: z.string(),
  role: z.string(),
  level: z.enum(AUTONOMY_LEVELS),
  reason: z.string(),
  status: z.enum(PROMOTION_STATUSES),
  requestedBy: z.string().nullable(),
  requestedAt: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decisionReason: z.string().nullable(),
});
export type PromotionView = z.infer<typeof promotionSchema>;
