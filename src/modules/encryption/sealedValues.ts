// The sensitive value store (docs/privacy.md): pii/phi values sealed with AES-256-GCM, one row per
// value, referenced from events and read models as `svc:sealed:<id>`. Direct mode seals a value
// with the site's active key-ring key; envelope mode seals it with a data key of its own, stored
// wrapped by the active key. The associated data binds a value to its site, record and field, so a
// reference copied to another record does not open.
import { AppError } from '../../../domain/shared/appError.ts';
import { v7 as uuidv7 } from 'uuid';
import { newDataKey, openBytes, OpenFailedError, sealBytes, type KeyRing } from '../../../infra/crypto/keyRing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { prepared, sql } from '../../../infra/postgres/sql.ts';

/** Where a value belongs. */
export interface SealTarget {
  collection: string;
  itemId: string;
  field: string;
}

/** How a site seals new values: its active key, and whether each value gets its own data key. */
export interface SealMode {
  keyId: string;
  envelope: boolean;
}

export interface SealedRow extends SealTarget {
  id: string;
  keyId: string;
  dataKey: Buffer | null;
  sealed: Buffer;
}

function valueData(siteId: string, id: string, target: SealTarget): Buffer {
  return Buffer.from(['svc:value:v1', siteId, target.collection, target.itemId, target.field, id].join('\u001f'));
}

function dataKeyData(siteId: string, id: string, keyId: string): Buffer {
  return Buffer.from(['svc:data-key:v1', siteId, id, keyId].join('\u001f'));
}

function keyOf(keyRing: KeyRing, keyId: string): Buffer {
  if (!keyRing.has(keyId)) throw new AppError('KEY_NOT_PROVISIONED', `Encryption key "${keyId}" has no bytes in SVC_ENCRYPTION_KEYS`);
  return keyRing.key(keyId);
}

/** Seals one value (its JSON) for `target` under the site's mode. */
export function sealValue(keyRing: KeyRing, siteId: string, mode: SealMode, target: SealTarget, value: unknown): SealedRow {
  const id = uuidv7();
  const plaintext = Buffer.from(JSON.stringify(value));
  const keyEncryptionKey = keyOf(keyRing, mode.keyId);
  if (!mode.envelope) {
    return { id, ...target, keyId: mode.keyId, dataKey: null, sealed: sealBytes(keyEncryptionKey, plaintext, valueData(siteId, id, target)) };
  }
  const dataKey = newDataKey();
  return {
    id,
    ...target,
    keyId: mode.keyId,
    dataKey: sealBytes(keyEncryptionKey, dataKey, dataKeyData(siteId, id, mode.keyId)),
    sealed: sealBytes(dataKey, plaintext, valueData(siteId, id, target)),
  };
}

/** Writes sealed rows with the transaction's next round trip. */
export function insertSealed(tx: Queryable, siteId: string, rows: readonly SealedRow[]): void {
  if (rows.length === 0) return;
  tx.defer(sql`
    INSERT INTO sensitive_values (site_id, id, collection, item_id, field, key_id, data_key, sealed)
    SELECT ${siteId}, * FROM unnest(${rows.map((row) => row.id)}::uuid[], ${rows.map((row) => row.collection)}::text[],
      ${rows.map((row) => row.itemId)}::text[], ${rows.map((row) => row.field)}::text[], ${rows.map((row) => row.keyId)}::text[],
      ${rows.map((row) => row.dataKey)}::bytea[], ${rows.map((row) => row.sealed)}::bytea[])`);
}

/** Destroys sealed values (credentials replaced or deleted with what they belonged to). */
export async function deleteSealed(tx: Queryable, siteId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(sql`DELETE FROM sensitive_values WHERE site_id = ${siteId} AND id = ANY(${ids}::uuid[])`);
}

/** A value that would not open: a wrong or missing key, tampered bytes, or a row of another record. */
export class DecryptionFailure extends Error {
  constructor(
    readonly target: SealTarget,
    readonly valueId: string,
    readonly keyId: string | null,
    reason: string,
  ) {
    super(reason);
  }
}

export interface StoredSealed extends SealTarget {
  id: string;
  keyId: string;
  dataKey: Buffer | null;
  sealed: Buffer;
}

/** The stored rows of these value ids (an erased value has none). */
export async function loadSealed(tx: Queryable, siteId: string, ids: readonly string[]): Promise<Map<string, StoredSealed>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.query<{ id: string; collection: string; item_id: string; field: string; key_id: string; data_key: Buffer | null; sealed: Buffer }>(
    prepared(sql`SELECT id, collection, item_id, field, key_id, data_key, sealed FROM sensitive_values WHERE site_id = ${siteId} AND id = ANY(${ids}::uuid[])`),
  );
  return new Map(rows.map((row) => [row.id, { id: row.id, collection: row.collection, itemId: row.item_id, field: row.field, keyId: row.key_id, dataKey: row.data_key, sealed: row.sealed }]));
}

/** The data key a value is sealed with: the key-ring key itself, or its own data key unwrapped. */
function valueKey(keyRing: KeyRing, siteId: string, row: StoredSealed): Buffer {
  if (!keyRing.has(row.keyId)) throw new OpenFailedError(`key "${row.keyId}" is not provisioned`);
  const key = keyRing.key(row.keyId);
  return row.dataKey ? openBytes(key, row.dataKey, dataKeyData(siteId, row.id, row.keyId)) : key;
}

/** Opens a stored value found at `target`; DecryptionFailure if it does not open or belongs elsewhere. */
export function openSealed(keyRing: KeyRing, siteId: string, row: StoredSealed, target: SealTarget): unknown {
  if (row.collection !== target.collection || row.itemId !== target.itemId || row.field !== target.field) {
    throw new DecryptionFailure(target, row.id, row.keyId, 'the sealed value belongs to another record or field');
  }
  try {
    const plaintext = openBytes(valueKey(keyRing, siteId, row), row.sealed, valueData(siteId, row.id, row));
    return JSON.parse(plaintext.toString('utf8')) as unknown;
  } catch (error) {
    if (error instanceof OpenFailedError) throw new DecryptionFailure(target, row.id, row.keyId, error.message);
    // Never the parser's message: it quotes the opened bytes.
    if (error instanceof SyntaxError) throw new DecryptionFailure(target, row.id, row.keyId, 'the opened value is not JSON');
    throw error;
  }
}

/**
 * Seals `row`'s plaintext again under `mode` (rewrap, envelope migration), keeping its id: in
 * envelope mode only the data key is wrapped anew when the value already has one.
 */
export function resealRow(keyRing: KeyRing, siteId: string, row: StoredSealed, mode: SealMode): { keyId: string; dataKey: Buffer | null; sealed: Buffer } {
  const newKey = keyOf(keyRing, mode.keyId);
  const opening = <T>(open: () => T): T => {
    try {
      return open();
    } catch (error) {
      if (error instanceof OpenFailedError) throw new DecryptionFailure({ collection: row.collection, itemId: row.itemId, field: row.field }, row.id, row.keyId, error.message);
      throw error;
    }
  };
  const current = opening(() => valueKey(keyRing, siteId, row));
  if (mode.envelope && row.dataKey) {
    return { keyId: mode.keyId, dataKey: sealBytes(newKey, current, dataKeyData(siteId, row.id, mode.keyId)), sealed: row.sealed };
  }
  const plaintext = opening(() => openBytes(current, row.sealed, valueData(siteId, row.id, row)));
  if (!mode.envelope) return { keyId: mode.keyId, dataKey: null, sealed: sealBytes(newKey, plaintext, valueData(siteId, row.id, row)) };
  const dataKey = newDataKey();
  return { keyId: mode.keyId, dataKey: sealBytes(newKey, dataKey, dataKeyData(siteId, row.id, mode.keyId)), sealed: sealBytes(dataKey, plaintext, valueData(siteId, row.id, row)) };
}
