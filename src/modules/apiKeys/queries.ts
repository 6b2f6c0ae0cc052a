// Reads of API keys: never the key or its hash, only what identifies it.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface ApiKeyView {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  userId: string | null;
  roleId: string | null;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** When the key stops working, or null: never. An expired key stays listed until it is revoked. */
  expiresAt: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  user_id: string | null;
  role_id: string | null;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

const viewOf = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  userId: row.user_id,
  roleId: row.role_id,
  createdBy: row.created_by,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
  expiresAt: row.expires_at?.toISOString() ?? null,
});

const KEY_SELECT = sql`
  SELECT k.id, k.name, k.prefix, k.user_id, k.role_id, k.created_by, k.created_at, k.expires_at, u.last_used_at
    FROM api_keys k LEFT JOIN api_key_usage u ON u.site_id = k.site_id AND u.api_key_id = k.id`;

/** Active (not revoked) keys of the site, oldest first. */
export async function listApiKeys(tx: Queryable, siteId: string): Promise<ApiKeyView[]> {
  const rows = await tx.query<ApiKeyRow>(sql`${KEY_SELECT} WHERE k.site_id = ${siteId} AND k.revoked_at IS NULL ORDER BY k.created_at, k.id`);
  return rows.map(viewOf);
}

export async function findApiKey(tx: Queryable, siteId: string, apiKeyId: string): Promise<ApiKeyView | null> {
  const [row] = await tx.query<ApiKeyRow>(sql`${KEY_SELECT} WHERE k.site_id = ${siteId} AND k.id = ${apiKeyId} AND k.revoked_at IS NULL`);
  return row ? viewOf(row) : null;
}
