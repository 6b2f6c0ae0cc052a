// A site's suppression list: the addresses its marketing sends skip, with why and since when.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

async function suppress(tx: Queryable, event: StoredEvent<'email_suppressed' | 'email_unsubscribed'>, reason: string): Promise<void> {
  await tx.query(sql`
    INSERT INTO email_suppressions (site_id, email_hash, email, reason, created_at)
    VALUES (${event.siteId}, ${event.data.emailHash}, ${event.data.email}, ${reason}, ${event.recordedAt})
    ON CONFLICT (site_id, email_hash) DO NOTHING`);
}

export const emailSuppressionsProjection = defineProjection({
  name: 'email_suppressions',
  mode: 'inline',
  tables: ['email_suppressions'],
  handlers: {
    email_suppressed: (tx, event) => suppress(tx, event, event.data.reason),
    email_unsubscribed: (tx, event) => suppress(tx, event, 'unsubscribe'),
    email_unsuppressed: async (tx, event) => {
      await tx.query(sql`DELETE FROM email_suppressions WHERE site_id = ${event.siteId} AND email_hash = ${event.data.emailHash}`);
    },
  },
});
