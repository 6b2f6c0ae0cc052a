// Which local user an external identity (issuer + subject) signs in as. A deleted user's links go too.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const userIdentitiesProjection = defineProjection({
  name: 'user_identities',
  mode: 'inline',
  tables: ['user_identities'],
  handlers: {
    'user.external_identity_linked': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO user_identities (site_id, issuer_id, external_id, user_id, linked_at)
        VALUES (${event.siteId}, ${d.issuerId}, ${d.externalId}, ${d.userId}, ${event.recordedAt})`);
    },
    'user.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM user_identities WHERE site_id = ${event.siteId} AND user_id = ${event.data.userId}`);
    },
  },
});
