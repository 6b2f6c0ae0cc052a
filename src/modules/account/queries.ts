// Reads of the account area: a user's active sessions (redacted) and preferences.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface SessionView {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  /** Whether the request was made with this session's access token. */
  current: boolean;
  /** Whether an administrator opened this session by impersonation. */
  impersonated: boolean;
}

interface SessionRow {
  id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  impersonator_id: string | null;
}

/** Active sessions (not revoked, not expired) of a user, newest first. Never the refresh-token hash. */
export async function listActiveSessions(tx: Queryable, siteId: string, userId: string, currentSessionId: string | null): Promise<SessionView[]> {
  const rows = await tx.query<SessionRow>(sql`
    SELECT id, user_agent, ip, created_at, last_used_at, expires_at, impersonator_id FROM sessions
     WHERE site_id = ${siteId} AND user_id = ${userId} AND revoked_at IS NULL AND expires_at > now()
     ORDER BY last_used_at DESC, id`);
  return rows.map((row) => ({
    id: row.id,
    userAgent: row.user_agent,
    ip: row.ip,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    current: row.id === currentSessionId,
    impersonated: row.impersonator_id !== null,
  }));
}

/** The owner of an active session, or null. */
export async function activeSessionOwner(tx: Queryable, siteId: string, sessionId: string): Promise<string | null> {
  const [row] = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM sessions WHERE site_id = ${siteId} AND id = ${sessionId} AND revoked_at IS NULL`,
  );
  return row?.user_id ?? null;
}

export async function readPreferences(tx: Queryable, siteId: string, userId: string): Promise<Record<string, unknown> | null> {
  const [row] = await tx.query<{ preferences: Record<string, unknown> }>(
    sql`SELECT preferences FROM users WHERE site_id = ${siteId} AND id = ${userId} AND deleted_at IS NULL`,
  );
  return row ? { saveAction: null, ...row.preferences } : null;
}
