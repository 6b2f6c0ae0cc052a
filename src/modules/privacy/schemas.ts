// The zod shapes of what the privacy routes take and answer.
import { z } from 'zod';
import { CONSENT_TYPES } from '../../../domain/privacy/events.ts';
import {  } from '../../server/routeKit.ts';

export const consentTypeParams = z.object({ type: z.enum(CONSENT_TYPES) });

export const consentBody = z.object({ granted: z.boolean(), source: z.string().min(1).max(200), version: z.string().min(1).max(100) }).strict();

export const consentSchema = z.object({
  consentType: z.enum(CONSENT_TYPES),
  granted: z.boolean(),
  grantedAt: z.string().nullable(),
  withdrawnAt: z.string().nullable(),
  source: z.string(),
  version: z.string(),
  updatedAt: z.string(),
});
export type ConsentView = z.infer<typeof consentSchema>;

export const restrictionBody = z.object({ restricted: z.boolean(), reason: z.string().min(1).max(1000).nullable().optional() }).strict();

export const restrictionSchema = z.object({ restricted: z.boolean(), reason: z.string().nullable(), restrictedAt: z.string().nullable() });
export type RestrictionView = z.infer<typeof restrictionSchema>;

export const automatedDecisionSchema = z.object({
  revisionId: z.string(),
  collection: z.string(),
  itemId: z.string(),
  version: z.number().int(),
  eventType: z.string(),
  agentId: z.string().nullable(),
  onBehalfOf: z.string().nullable(),
  approvedBy: z.string().nullable(),
  approvalId: z.string().nullable(),
  changedFields: z.array(z.string()),
  recordedAt: z.string(),
});
export type AutomatedDecisionView = z.infer<typeof automatedDecisionSchema>;

