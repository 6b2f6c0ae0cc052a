// Each user's consents: the current choice per consent type (the history is the log and the audit list).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const consentsProjection = defineProjection({
  name: 'consents',
  mode: 'inline',
  tables: ['consents'],
  handlers: {
    consent_granted: async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO consents (site_id, user_id, consent_type, granted, granted_at, withdrawn_at, source, version, updated_at)
        VALUES (${event.siteId}, ${d.userId}, ${d.consentType}, true, ${event.recordedAt}, NULL, ${d.source}, ${d.version}, ${event.recordedAt})
        ON CONFLICT (site_id, user_id, consent_type) DO UPDATE
          SET granted = true, granted_at = EXCLUDED.granted_at, withdrawn_at = NULL,
              source = EXCLUDED.source, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`);
    },
    consent_withdrawn: async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO consents (site_id, user_id, consent_type, granted, granted_at, withdrawn_at, source, version, updated_at)
        VALUES (${event.siteId}, ${d.userId}, ${d.consentType}, false, NULL, ${event.recordedAt}, ${d.source}, ${d.version}, ${event.recordedAt})
        ON CONFLICT (site_id, user_id, consent_type) DO UPDATE
          SET granted = false, withdrawn_at = EXCLUDED.withdrawn_at,
              source = EXCLUDED.source, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`);
    },
  },
});
