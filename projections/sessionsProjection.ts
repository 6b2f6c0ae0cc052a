import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';
import { IDENTITY_CHANNEL } from './usersProjection.ts';

export const sessionsProjection = defineProjection({
  name: 'sessions',
  mode: 'inline',
  tables: ['sessions'],
  maintainers: [
    {
      table: 'sessions',
      writer: 'src/modules/privacy/retention.ts (pruneEndedSessions)',
      why: 'retention: sessions ended (revoked or expired) more than SVC_RETENTION_SESSIONS_DAYS ago are removed; a rebuild brings them back.',
    },
  ],
  handlers: {
    'session.started': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const d = event.data;
      await tx.query(sql`
        INSERT INTO sessions (site_id, id, user_id, refresh_token_hash, user_agent, ip, impersonator_id, created_at, last_used_at, expires_at)
        VALUES (${event.siteId}, ${d.sessionId}, ${d.userId}, ${d.refreshTokenHash}, ${d.userAgent}, ${d.ip},
                ${d.impersonatorId ?? null}, ${event.recordedAt}, ${event.recordedAt}, ${d.expiresAt})`);
    },
    'session.refreshed': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const d = event.data;
      await tx.query(sql`
        UPDATE sessions SET refresh_token_hash = ${d.refreshTokenHash}, last_used_at = ${event.recordedAt}, expires_at = ${d.expiresAt}
         WHERE site_id = ${event.siteId} AND id = ${d.sessionId}`);
    },
    'session.revoked': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const d = event.data;
      await tx.query(sql`
        UPDATE sessions SET revoked_at = ${event.recordedAt}, revoked_reason = ${d.reason}
         WHERE site_id = ${event.siteId} AND id = ${d.sessionId}`);
    },
  },
});
