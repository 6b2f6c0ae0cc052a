// A site's encryption settings as the read model holds them (projections/encryptionSettingsProjection.ts).
import type { KeyRing } from '../../../infra/crypto/keyRing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { SealMode } from './sealedValues.ts';

export interface EncryptionSettings extends SealMode {
  retiredKeyIds: string[];
  /** The site has rotated at least once (else the ring's default key is active). */
  rotated: boolean;
}

export async function readEncryptionSettings(tx: Queryable, siteId: string, keyRing: KeyRing): Promise<EncryptionSettings> {
  const [row] = await tx.query<{ active_key_id: string | null; retired_key_ids: string[]; envelope: boolean }>(
    sql`SELECT active_key_id, retired_key_ids, envelope FROM encryption_settings WHERE site_id = ${siteId}`,
  );
  return {
    keyId: row?.active_key_id ?? keyRing.defaultId,
    envelope: row?.envelope ?? false,
    retiredKeyIds: row?.retired_key_ids ?? [],
    rotated: Boolean(row?.active_key_id),
  };
}
