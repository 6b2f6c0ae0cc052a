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

/**
 * A site's encryption settings (stream `<siteId>/encryption`): the key-ring key that seals new values
 * and the envelope mode, named as the audit actions the spec lists. `encryption_values_resealed`
 * records a rewrap or an envelope migration batch: bytes sealed anew, no value changed.
 */
export const encryptionEventSchemas = {
  encryption_key_rotated: z.object({ keyId: z.string(), previousKeyId: z.string() }),
  envelope_mode_changed: z.object({ enabled: z.boolean() }),
  encryption_values_resealed: z.object({
    operation: z.enum(['rewrap', 'envelope_migration']),
    keyId: z.string(),
    envelope: z.boolean(),
    values: z.number().int(),
  }),
};
export type EncryptionEvent = EventOf<typeof encryptionEventSchemas>;

/** A sealed value that would not open (a wrong key, tampered bytes): the day stream `<siteId>/decryption-failures/<day>`. */
export const decryptionFailureEventSchemas = {
  decryption_failed: z.object({
    collection: z.string(),
    itemId: z.string(),
    field: z.string(),
    valueId: z.string(),
    keyId: z.string().nullable(),
    reason: z.string(),
  }),
};
export type DecryptionFailureEvent = EventOf<typeof decryptionFailureEventSchemas>;

/**
 * An erasure request (stream `<siteId>/erasure/<erasureId>`): the subject is only ever its keyed hash; the
 * records it matched are named by id. `data_erased` is the audit action of the spec.
 */
export const erasureEventSchemas = {
  erasure_requested: z.object({
    erasureId: z.string(),
    collection: z.string(),
    subjectHash: z.string(),
    reason: z.string(),
    requestedBy: z.string(),
    recordIds: z.array(z.string()),
  }),
  erasure_confirmed: z.object({ erasureId: z.string(), confirmedBy: z.string() }),
  data_erased: z.object({
    erasureId: z.string(),
    collection: z.string(),
    subjectHash: z.string(),
    recordCount: z.number().int(),
    recordIds: z.array(z.string()),
    shreddedValues: z.number().int(),
  }),
};
export type ErasureEvent = EventOf<typeof erasureEventSchemas>;

export const privacyEventSchemas = {
  ...consentEventSchemas,
  ...restrictionEventSchemas,
  ...encryptionEventSchemas,
  ...decryptionFailureEventSchemas,
  ...erasureEventSchemas,
};
