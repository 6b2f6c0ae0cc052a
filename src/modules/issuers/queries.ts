// Reads of trusted issuers.
import type { IssuerConfig } from '../../../domain/identity/issuer.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export type IssuerView = IssuerConfig & { id: string; createdAt: string; updatedAt: string };

interface IssuerRow {
  id: string;
  config: IssuerConfig;
  created_at: Date;
  updated_at: Date;
}

const viewOf = (row: IssuerRow): IssuerView => ({
  id: row.id,
  ...row.config,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function listIssuers(tx: Queryable, siteId: string): Promise<IssuerView[]> {
  const rows = await tx.query<IssuerRow>(
    sql`SELECT id, config, created_at, updated_at FROM trusted_issuers WHERE site_id = ${siteId} ORDER BY created_at, id`,
  );
  return rows.map(viewOf);
}

export async function findIssuer(tx: Queryable, siteId: string, issuerId: string): Promise<IssuerView | null> {
  const [row] = await tx.query<IssuerRow>(
    sql`SELECT id, config, created_at, updated_at FROM trusted_issuers WHERE site_id = ${siteId} AND id = ${issuerId}`,
  );
  return row ? viewOf(row) : null;
}

export async function issuerIdByName(tx: Queryable, siteId: string, issuer: string): Promise<string | null> {
  const [row] = await tx.query<{ id: string }>(sql`SELECT id FROM trusted_issuers WHERE site_id = ${siteId} AND issuer = ${issuer}`);
  return row?.id ?? null;
}
