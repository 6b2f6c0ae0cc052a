// Trusted external identity providers of each site, looked up by the `iss` of a presented token.
import type { IssuerEvent } from '../domain/identity/issuer.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const trustedIssuersProjection = defineProjection({
  name: 'trusted_issuers',
  mode: 'inline',
  eventTypes: ['issuer.created', 'issuer.updated', 'issuer.deleted'],
  tables: ['trusted_issuers'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as IssuerEvent;
    switch (typed.type) {
      case 'issuer.created': {
        const { issuerId, config } = typed.data;
        await tx.query(sql`
          INSERT INTO trusted_issuers (site_id, id, issuer, enabled, config, created_at, updated_at)
          VALUES (${event.siteId}, ${issuerId}, ${config.issuer}, ${config.enabled}, ${JSON.stringify(config)}::jsonb,
                  ${event.recordedAt}, ${event.recordedAt})`);
        return;
      }
      case 'issuer.updated': {
        const { issuerId, config } = typed.data;
        await tx.query(sql`
          UPDATE trusted_issuers SET issuer = ${config.issuer}, enabled = ${config.enabled}, config = ${JSON.stringify(config)}::jsonb,
                 updated_at = ${event.recordedAt}
           WHERE site_id = ${event.siteId} AND id = ${issuerId}`);
        return;
      }
      case 'issuer.deleted':
        await tx.query(sql`DELETE FROM trusted_issuers WHERE site_id = ${event.siteId} AND id = ${typed.data.issuerId}`);
        return;
    }
  },
});
