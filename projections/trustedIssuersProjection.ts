// Trusted external identity providers of each site, looked up by the `iss` of a presented token.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const trustedIssuersProjection = defineProjection({
  name: 'trusted_issuers',
  mode: 'inline',
  tables: ['trusted_issuers'],
  handlers: {
    'issuer.created': async (tx, event) => {
      const { issuerId, config } = event.data;
      await tx.query(sql`
        INSERT INTO trusted_issuers (site_id, id, issuer, enabled, config, created_at, updated_at)
        VALUES (${event.siteId}, ${issuerId}, ${config.issuer}, ${config.enabled}, ${JSON.stringify(config)}::jsonb,
                ${event.recordedAt}, ${event.recordedAt})`);
    },
    'issuer.updated': async (tx, event) => {
      const { issuerId, config } = event.data;
      await tx.query(sql`
        UPDATE trusted_issuers SET issuer = ${config.issuer}, enabled = ${config.enabled}, config = ${JSON.stringify(config)}::jsonb,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${issuerId}`);
    },
    'issuer.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM trusted_issuers WHERE site_id = ${event.siteId} AND id = ${event.data.issuerId}`);
    },
  },
});
