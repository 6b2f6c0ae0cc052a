// Consents, restriction, data export, retention, regulated content (keys, envelope mode, the
// field-access log), subject access and erasure.
import { z } from 'zod';
import type { OperationCatalogue } from '../operationEntry.ts';
import { nullableTimestamp, openObject, pageMeta, timestamp } from './shapes.ts';

const erasure = z.object({
  id: z.string(),
  status: z.enum(['requested', 'confirmed', 'executed']),
  collection: z.string(),
  subjectHash: z.string().describe('A keyed hash of the subject; the plaintext is never stored'),
  reason: z.string(),
  matchedCount: z.number(),
  requestedBy: z.string(),
  requestedAt: timestamp,
  confirmedBy: z.string().nullable(),
  confirmedAt: nullableTimestamp,
  executedBy: z.string().nullable(),
  executedAt: nullableTimestamp,
  recordCount: z.number().nullable(),
  shreddedValues: z.number().nullable(),
});
const resealProgress = z.object({ processed: z.number(), remaining: z.number(), done: z.boolean() });
const envelopeStatus = z.object({
  enabled: z.boolean(),
  migration: z.object({ total: z.number(), migrated: z.number(), remaining: z.number(), done: z.boolean() }),
});
const exportDocument = {
  status: 200 as const,
  contentType: 'application/json',
  raw: openObject,
  description: 'A JSON document sent as an attachment (`Content-Disposition`), not the `{ data }` envelope.',
};

export const privacyOperations: OperationCatalogue = {
  'GET /me/consents': { summary: 'The signed-in user’s consents' },
  'PUT /me/consents/{type}': {
    summary: 'Grant or withdraw one consent',
    description: 'The type is one of `marketing`, `analytics`, `personalization`, `functional`, `sale_share`; the history is in the audit log.',
  },
  'GET /me/restriction': { summary: 'The signed-in user’s restriction of processing' },
  'PUT /me/restriction': { summary: 'Set or lift the restriction of processing' },
  'GET /me/automated-decisions': { summary: 'Agent-authored revisions on the signed-in user’s content' },
  'GET /me/data-export': { summary: 'Download the signed-in user’s personal data', response: exportDocument },
  'GET /retention': {
    summary: 'The configured retention horizons',
    response: {
      data: z.object({ horizons: z.array(z.object({ readModel: z.string(), days: z.number(), prunes: z.string(), prunedBy: z.string() }).catchall(z.unknown())) }),
    },
  },
  'POST /retention/run': {
    summary: 'Prune what is past its retention horizon now',
    response: { data: z.object({ pruned: z.record(z.string(), z.number()) }) },
  },
  'GET /admin/field-access-log': {
    summary: 'The decrypted-read audit (who read which sensitive fields; never values)',
    response: {
      data: z.array(
        z.object({
          at: timestamp,
          actor: z.object({ kind: z.string(), id: z.string().nullable() }),
          collection: z.string(),
          itemId: z.string(),
          fields: z.array(z.string()),
          sensitivity: z.string(),
          requestId: z.string().optional(),
        }),
      ),
      meta: pageMeta,
    },
  },
  'POST /admin/sar/export': {
    summary: 'Subject access export',
    description: 'Exports every record of the subject; the read is always written to the field-access log.',
    response: exportDocument,
  },
  'GET /admin/encryption/keys': {
    summary: 'The site’s encryption keys (metadata only)',
    response: {
      data: z.array(
        z.object({
          id: z.string(),
          status: z.string(),
          algorithm: z.string(),
          provisioned: z.boolean().describe('Whether SVC_ENCRYPTION_KEYS holds the key’s bytes here'),
          values: z.number(),
        }),
      ),
      meta: z.object({ total: z.number() }),
    },
  },
  'POST /admin/encryption/keys/rotate': {
    summary: 'Rotate to a provisioned key',
    description: 'Promotes the named key and retires the previous one; audited as `encryption_key_rotated`.',
    errors: ['KEY_NOT_PROVISIONED'],
    response: { data: z.object({ activeKeyId: z.string(), previousKeyId: z.string().nullable() }) },
  },
  'POST /admin/encryption/keys/rewrap': {
    summary: 'Re-encrypt a batch of values of retired keys onto the active key',
    description: 'Idempotent and resumable: call until `done`.',
    errors: ['KEY_NOT_PROVISIONED'],
    response: { data: resealProgress },
  },
  'GET /admin/encryption/envelope': { summary: 'Envelope mode and its migration progress', response: { data: envelopeStatus } },
  'POST /admin/encryption/envelope': {
    summary: 'Turn envelope mode on or off',
    description: 'The administrator’s password is verified again (401 `INVALID_CREDENTIALS`); audited as `envelope_mode_changed`.',
    errors: ['INVALID_CREDENTIALS'],
    response: { data: openObject },
  },
  'POST /admin/encryption/envelope/migrate': {
    summary: 'Migrate a batch of values to the current envelope mode',
    description: 'Call until `done`.',
    response: { data: resealProgress },
  },
  'GET /admin/erasure': { summary: 'List erasure requests', response: { data: z.array(erasure), meta: pageMeta } },
  'POST /admin/erasure': {
    summary: 'Request the erasure of a subject’s records',
    description: 'Stores a hash of the subject, never the plaintext. Executed after a second administrator confirms when the setting `erasureDualControl` is on.',
    response: { status: 201, data: erasure },
  },
  'GET /admin/erasure/{id}': { summary: 'One erasure request', response: { data: erasure } },
  'POST /admin/erasure/{id}/confirm': {
    summary: 'Confirm an erasure (the second administrator)',
    description: 'The confirming administrator must differ from the requester.',
    errors: ['CONFLICT'],
    response: { data: erasure },
  },
  'POST /admin/erasure/{id}/execute': {
    summary: 'Execute an erasure',
    description: 'Erases the records and shreds their sensitive values; audited as `data_erased` with `recordCount`.',
    errors: ['CONFLICT'],
    response: { data: erasure },
  },
  'GET /admin/erasure/{id}/receipt': {
    summary: 'The signed receipt of an executed erasure',
    description: 'An Ed25519 signature over the canonical JSON of the receipt; 409 before the erasure is executed.',
    errors: ['CONFLICT'],
    response: {
      data: z.object({ receipt: openObject, payload: z.string(), signature: z.string(), keyId: z.string(), algorithm: z.string() }).catchall(z.unknown()),
    },
  },
};
