// Events of the privacy context: a user's consents (one stream per user and consent type) and the
// restriction of processing of their data (one stream per user). The consent events are named as
// the audit actions the spec lists (`consent_granted`, `consent_withdrawn`), since the audit list
// shows every event under its type.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const CONSENT_TYPES = ['marketing', 'analytics', 'personalization', 'functional', 'sale_share'] as const;
export type ConsentType = (typeof CONSENT_TYPES)[number];

const consentChangeSchema = z.object({
  userId: z.string(),
  consentType: z.enum(CONSENT_TYPES),
  /** Where the choice was made (a banner, a settings page, an import). */
  source: z.string(),
  /** The version of the text the user agreed to or withdrew from. */
  version: z.string(),
});

export const consentEventSchemas = {
  consent_granted: consentChangeSchema,
  consent_withdrawn: consentChangeSchema,
};
export type ConsentEvent = EventOf<typeof consentEventSchemas>;

export const restrictionEventSchemas = {
  'processing_restriction.applied': z.object({ userId: z.string(), reason: z.string().nullable() }),
  'processing_restriction.lifted': z.object({ userId: z.string() }),
};
export type RestrictionEvent = EventOf<typeof restrictionEventSchemas>;

export const privacyEventSchemas = { ...consentEventSchemas, ...restrictionEventSchemas };
