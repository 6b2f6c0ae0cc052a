// Compliance reports of each site (docs/compliance-reports.md): status, parameters, progress, and once
// completed the file's size, SHA-256 and entry count with the signature of its manifest.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const complianceReportsProjection = defineProjection({
  name: 'compliance_reports',
  mode: 'inline',
  tables: ['compliance_reports'],
  handlers: {
    'report.requested': async (tx, event) => {
      const { actor } = event.metadata;
      const requestedBy = { kind: actor?.kind ?? 'system', id: actor?.id ?? null };
      await tx.query(sql`
        INSERT INTO compliance_reports (site_id, id, status, params, requested_by, created_at)
        VALUES (${event.siteId}, ${event.data.reportId}, 'queued', ${JSON.stringify(event.data.params)}::jsonb, ${JSON.stringify(requestedBy)}::jsonb,
                ${event.recordedAt})
        ON CONFLICT DO NOTHING`);
    },
    'report.started': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE compliance_reports SET status = 'running', attempts = ${d.attempt}, progress_entries = 0, progress_total = ${d.total},
               started_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${d.reportId}`);
    },
    'report.progressed': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE compliance_reports SET progress_entries = ${d.entries}, progress_total = ${d.total} WHERE site_id = ${event.siteId} AND id = ${d.reportId}`);
    },
    'report.completed': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE compliance_reports SET status = 'completed', progress_entries = ${d.entries}, entries = ${d.entries}, bytes = ${d.bytes}, sha256 = ${d.sha256},
               first_position = ${d.firstPosition}, last_position = ${d.lastPosition}, valid = ${d.valid}, problems = ${d.problems},
               signature = ${d.signature}, key_id = ${d.keyId}, completed_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${d.reportId}`);
    },
    'report.failed': async (tx, event) => {
      await tx.query(sql`
        UPDATE compliance_reports SET status = 'failed', error = ${event.data.error}, completed_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.reportId}`);
    },
  },
});
