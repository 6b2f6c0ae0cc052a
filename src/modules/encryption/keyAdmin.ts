// The site administrator's key operations (docs/privacy.md): the key list, rotation, rewrap of
// values left on retired keys, the envelope mode and its migration. Rewrap and migration are bounded
// per call and keep their progress in the data itself (the values not yet on the active key, not yet
// in the target mode), so they resume where they stopped, after a restart too.
import { encryptionDecider, encryptionStreamId, type EncryptionCommand } from '../../../domain/privacy/encryption.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { ENCRYPTION_ALGORITHM } from '../../../infra/crypto/keyRing.ts';
import { verifyPassword } from '../../../infra/crypto/passwords.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readEncryptionSettings } from './encryptionSettings.ts';
import { failClosed } from './reveal.ts';
import { DecryptionFailure, resealRow, type SealMode, type StoredSealed } from './sealedValues.ts';

export type KeyAdminContext = Pick<AppContext, 'database' | 'projections' | 'keyRing'>;

export type KeyStatus = 'active' | 'retired' | 'provisioned';

export interface KeyInfo {
  id: string;
  status: KeyStatus;
  algorithm: typeof ENCRYPTION_ALGORITHM;
  /** Whether SVC_ENCRYPTION_KEYS holds the key's bytes on this deployment. */
  provisioned: boolean;
  /** Sealed values of the site on this key (values, or their data keys in envelope mode). */
  values: number;
}

export async function listKeys(context: KeyAdminContext, siteId: string): Promise<KeyInfo[]> {
  return context.database.withSiteReads(siteId, async (tx) => {
    const settings = await readEncryptionSettings(tx, siteId, context.keyRing);
    const counts = await tx.query<{ key_id: string; values: number }>(
      sql`SELECT key_id, count(*)::int AS values FROM sensitive_values WHERE site_id = ${siteId} GROUP BY key_id`,
    );
    const valuesOf = new Map(counts.map((row) => [row.key_id, row.values]));
    const ids = [...new Set([settings.keyId, ...settings.retiredKeyIds, ...context.keyRing.ids, ...valuesOf.keys()])];
    return ids.map((id) => ({
      id,
      status: id === settings.keyId ? 'active' : settings.retiredKeyIds.includes(id) || valuesOf.has(id) ? 'retired' : 'provisioned',
      algorithm: ENCRYPTION_ALGORITHM,
      provisioned: context.keyRing.has(id),
      values: valuesOf.get(id) ?? 0,
    }));
  });
}

async function runEncryptionCommand(context: KeyAdminContext, tx: Queryable, siteId: string, command: EncryptionCommand, metadata: EventMetadata) {
  return handleCommandIn(tx, context.projections, { siteId, streamId: encryptionStreamId(siteId), decider: encryptionDecider, command, metadata, lock: true });
}

/** Promotes a provisioned key; the active one becomes retired (422 KEY_NOT_PROVISIONED without its bytes). */
export async function rotateKey(context: KeyAdminContext, siteId: string, keyId: string, metadata: EventMetadata) {
  return inSiteTransaction(context, siteId, async (tx) => {
    const before = await readEncryptionSettings(tx, siteId, context.keyRing);
    const command: EncryptionCommand = { type: 'rotateKey', keyId, defaultKeyId: context.keyRing.defaultId, provisioned: context.keyRing.has(keyId) };
    const result = await runEncryptionCommand(context, tx, siteId, command, metadata);
    return { activeKeyId: keyId, previousKeyId: result.events.length > 0 ? before.keyId : null };
  });
}

export interface ResealProgress {
  /** Values sealed anew by this call. */
  processed: number;
  remaining: number;
  done: boolean;
}

interface ResealPlan {
  operation: 'rewrap' | 'envelope_migration';
  /** The values still to do (alias `v`), each condition served by an index (no rescan of done rows). */
  pending: (mode: SealMode, keyIds: readonly string[]) => SqlFragment;
  /** The mode a value takes. */
  target: (mode: SealMode, row: StoredSealed) => SealMode;
}

/** One bounded batch of a rewrap or a migration, in one transaction: locked rows, sealed anew, the count recorded as an event. */
async function resealBatch(context: KeyAdminContext, siteId: string, plan: ResealPlan, limit: number, metadata: EventMetadata): Promise<ResealProgress> {
  try {
    return await inSiteTransaction(context, siteId, async (tx) => {
      const settings = await readEncryptionSettings(tx, siteId, context.keyRing);
      const keyIds = await sealingKeys(tx, siteId);
      const rows = await tx.query<{ id: string; collection: string; item_id: string; field: string; key_id: string; data_key: Buffer | null; sealed: Buffer }>(sql`
        SELECT id, collection, item_id, field, key_id, data_key, sealed FROM sensitive_values v
         WHERE v.site_id = ${siteId} AND ${plan.pending(settings, keyIds)}
         LIMIT ${limit} FOR UPDATE SKIP LOCKED`);
      const missing = rows.find((row) => !context.keyRing.has(row.key_id));
      if (missing) {
        throw new AppError('KEY_NOT_PROVISIONED', `Values are sealed with key "${missing.key_id}", whose bytes SVC_ENCRYPTION_KEYS does not hold: provision it to reseal them`, {
          extensions: { keyId: missing.key_id },
        });
      }
      const resealed = rows.map((row) => {
        const stored: StoredSealed = { id: row.id, collection: row.collection, itemId: row.item_id, field: row.field, keyId: row.key_id, dataKey: row.data_key, sealed: row.sealed };
        return { id: row.id, ...resealRow(context.keyRing, siteId, stored, plan.target(settings, stored)) };
      });
      if (resealed.length > 0) {
        await tx.query(sql`
          UPDATE sensitive_values v SET key_id = u.key_id, data_key = u.data_key, sealed = u.sealed
            FROM unnest(${resealed.map((row) => row.id)}::uuid[], ${resealed.map((row) => row.keyId)}::text[],
                        ${resealed.map((row) => row.dataKey)}::bytea[], ${resealed.map((row) => row.sealed)}::bytea[]) AS u(id, key_id, data_key, sealed)
           WHERE v.site_id = ${siteId} AND v.id = u.id`);
        await runEncryptionCommand(context, tx, siteId, { type: 'recordReseal', operation: plan.operation, keyId: settings.keyId, envelope: settings.envelope, values: resealed.length }, metadata);
      }
      const [left] = await tx.query<{ remaining: number }>(sql`SELECT count(*)::int AS remaining FROM sensitive_values v WHERE v.site_id = ${siteId} AND ${plan.pending(settings, keyIds)}`);
      const remaining = left?.remaining ?? 0;
      return { processed: resealed.length, remaining, done: remaining === 0 };
    });
  } catch (error) {
    if (error instanceof DecryptionFailure) return failClosed(context, siteId, error, metadata);
    throw error;
  }
}

/** The keys the site's values are sealed with: a loose index scan of sensitive_values_key (a few steps, however many values). */
async function sealingKeys(tx: Queryable, siteId: string): Promise<string[]> {
  const rows = await tx.query<{ key_id: string }>(sql`
    WITH RECURSIVE k AS (
      SELECT (SELECT min(key_id) FROM sensitive_values WHERE site_id = ${siteId}) AS key_id
      UNION ALL
      SELECT (SELECT min(key_id) FROM sensitive_values WHERE site_id = ${siteId} AND key_id > k.key_id) FROM k WHERE k.key_id IS NOT NULL)
    SELECT key_id FROM k WHERE key_id IS NOT NULL`);
  return rows.map((row) => row.key_id);
}

const REWRAP: ResealPlan = {
  operation: 'rewrap',
  pending: (mode, keyIds) => sql`v.key_id = ANY(${keyIds.filter((id) => id !== mode.keyId)}::text[])`,
  // A rewrap moves a value to the active key and keeps its mode (a migration changes modes).
  target: (mode, row) => ({ keyId: mode.keyId, envelope: row.dataKey !== null }),
};

const MIGRATION: ResealPlan = {
  operation: 'envelope_migration',
  pending: (mode) => (mode.envelope ? sql`v.data_key IS NULL` : sql`v.data_key IS NOT NULL`),
  target: (mode) => mode,
};

/** Moves up to `limit` values (or their data keys) off retired keys onto the active key. */
export function rewrap(context: KeyAdminContext, siteId: string, limit: number, metadata: EventMetadata): Promise<ResealProgress> {
  return resealBatch(context, siteId, REWRAP, limit, metadata);
}

/** Moves up to `limit` values into the site's envelope mode (their own data keys, or none). */
export function migrateEnvelope(context: KeyAdminContext, siteId: string, limit: number, metadata: EventMetadata): Promise<ResealProgress> {
  return resealBatch(context, siteId, MIGRATION, limit, metadata);
}

export interface EnvelopeStatus {
  enabled: boolean;
  migration: { total: number; migrated: number; remaining: number; done: boolean };
}

export async function envelopeStatus(context: KeyAdminContext, siteId: string): Promise<EnvelopeStatus> {
  return context.database.withSiteReads(siteId, async (tx) => {
    const settings = await readEncryptionSettings(tx, siteId, context.keyRing);
    const [counts] = await tx.query<{ total: number; enveloped: number }>(sql`
      SELECT (SELECT count(*)::int FROM sensitive_values WHERE site_id = ${siteId}) AS total,
             (SELECT count(*)::int FROM sensitive_values WHERE site_id = ${siteId} AND data_key IS NOT NULL) AS enveloped`);
    const total = counts?.total ?? 0;
    const migrated = settings.envelope ? (counts?.enveloped ?? 0) : total - (counts?.enveloped ?? 0);
    return { enabled: settings.envelope, migration: { total, migrated, remaining: total - migrated, done: migrated === total } };
  });
}

/** Turns the envelope mode on or off after re-verifying the administrator's password (step-up). */
/** `principal`: a site administrator signed in as themselves (the route's `personAdmin`), whose password is re-verified. */
export async function setEnvelope(context: KeyAdminContext, siteId: string, principal: UserPrincipal, input: { enabled: boolean; password: string }, metadata: EventMetadata) {
  const [user] = isUuid(principal.userId)
    ? await context.database.withSiteReads(siteId, (tx) =>
        tx.query<{ password_hash: string | null }>(sql`SELECT password_hash FROM users WHERE site_id = ${siteId} AND id = ${principal.userId}::uuid`),
      )
    : [];
  if (!(await verifyPassword(user?.password_hash ?? null, input.password))) {
    throw new AppError('INVALID_CREDENTIALS', 'The password is not this administrator\'s', { path: ['body', 'password'] });
  }
  await inSiteTransaction(context, siteId, (tx) => runEncryptionCommand(context, tx, siteId, { type: 'setEnvelope', enabled: input.enabled }, metadata));
  return envelopeStatus(context, siteId);
}
