// A site's sends with their counts, and each recipient's outcome (by keyed hash). The counts are
// recounted from the recipients after each delivery, so they are what the recipients say. A send
// that reached no recipient (every one failed or bounced) is `failed`.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const emailSendsProjection = defineProjection({
  name: 'email_sends',
  mode: 'inline',
  tables: ['email_send_recipients', 'email_sends'],
  handlers: {
    'email_send.planned': async (tx, event) => {
      const d = event.data;
      const status = d.recipients.length > 0 ? 'queued' : 'completed';
      await tx.query(sql`
        INSERT INTO email_sends (site_id, id, category, test, template_id, template_key, template_version, status, recipients, queued,
                                 skipped_suppressed, skipped_no_consent, skipped_restricted, created_at, updated_at, completed_at)
        VALUES (${event.siteId}, ${d.sendId}, ${d.category}, ${d.test}, ${d.templateId}::uuid, ${d.templateKey}, ${d.templateVersion}, ${status},
                ${d.recipients.length}, ${d.recipients.length}, ${d.skipped.suppressed}, ${d.skipped.noConsent}, ${d.skipped.restricted},
                ${event.recordedAt}, ${event.recordedAt}, ${status === 'completed' ? event.recordedAt : null})
        ON CONFLICT DO NOTHING`);
      if (d.recipients.length === 0) return;
      await tx.query(sql`
        INSERT INTO email_send_recipients (site_id, send_id, recipient_hash, status, updated_at)
        SELECT ${event.siteId}, ${d.sendId}, hash, 'queued', ${event.recordedAt} FROM unnest(${d.recipients}::text[]) AS hash
        ON CONFLICT DO NOTHING`);
    },
    'email_send.delivered': async (tx, event) => {
      const { sendId, results } = event.data;
      await tx.query(sql`
        UPDATE email_send_recipients r
           SET status = x.status, message_id = x."messageId", response = x.response, attempts = r.attempts + 1, updated_at = ${event.recordedAt}
          FROM jsonb_to_recordset(${JSON.stringify(results)}::jsonb) AS x(hash text, status text, "messageId" text, response text)
         WHERE r.site_id = ${event.siteId} AND r.send_id = ${sendId} AND r.recipient_hash = x.hash`);
      await tx.query(sql`
        WITH counts AS (
          SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'sent')::int AS sent,
                 count(*) FILTER (WHERE status = 'deferred')::int AS deferred, count(*) FILTER (WHERE status = 'bounced')::int AS bounced,
                 count(*) FILTER (WHERE status = 'failed')::int AS failed
            FROM email_send_recipients WHERE site_id = ${event.siteId} AND send_id = ${sendId})
        UPDATE email_sends s
           SET queued = c.queued, sent = c.sent, deferred = c.deferred, bounced = c.bounced, failed = c.failed, updated_at = ${event.recordedAt},
               status = CASE WHEN c.queued + c.deferred > 0 THEN 'queued' WHEN c.sent = 0 AND c.failed + c.bounced > 0 THEN 'failed' ELSE 'completed' END,
               completed_at = CASE WHEN c.queued + c.deferred > 0 THEN NULL ELSE coalesce(s.completed_at, ${event.recordedAt}) END
          FROM counts c
         WHERE s.site_id = ${event.siteId} AND s.id = ${sendId}`);
    },
  },
});
