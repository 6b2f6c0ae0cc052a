// Reads of the privacy read models: a user's consents and restriction, and the agent-authored
// revisions of the items they created.
import type { AgentProvenance } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AutomatedDecisionView, ConsentView, RestrictionView } from './schemas.ts';

interface ConsentRow {
  consent_type: ConsentView['consentType'];
  granted: boolean;
  granted_at: Date | null;
  withdrawn_at: Date | null;
  source: string;
  version: string;
  updated_at: Date;
}

const isoOrNull = (value: Date | null) => value?.toISOString() ?? null;

export async function listConsents(tx: Queryable, siteId: string, userId: string): Promise<ConsentView[]> {
  const rows = await tx.query<ConsentRow>(sql`
    SELECT consent_type, granted, granted_at, withdrawn_at, source, version, updated_at FROM consents
     WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY consent_type`);
  return rows.map((row) => ({
    consentType: row.consent_type,
    granted: row.granted,
    grantedAt: isoOrNull(row.granted_at),
    withdrawnAt: isoOrNull(row.withdrawn_at),
    source: row.source,
    version: row.version,
    updatedAt: row.updated_at.toISOString(),
  }));
}

export async function findConsent(tx: Queryable, siteId: string, userId: string, consentType: string): Promise<ConsentView | null> {
  return (await listConsents(tx, siteId, userId)).find((consent) => consent.consentType === consentType) ?? null;
}

export async function readRestriction(tx: Queryable, siteId: string, userId: string): Promise<RestrictionView> {
  const [row] = await tx.query<{ reason: string | null; restricted_at: Date }>(
    sql`SELECT reason, restricted_at FROM processing_restrictions WHERE site_id = ${siteId} AND user_id = ${userId}`,
  );
  return row ? { restricted: true, reason: row.reason, restrictedAt: row.restricted_at.toISOString() } : { restricted: false, reason: null, restrictedAt: null };
}

interface DecisionRow {
  revision_id: string;
  collection: string;
  item_id: string;
  version: number;
  event_type: string;
  actor_id: string | null;
  delta: Record<string, unknown>;
  agent: AgentProvenance | null;
  recorded_at: Date;
}

/** Revisions written by an agent (actor kind `agent`) of items the user created, newest first; what changed is the delta of the revision's event in the log. */
export async function listAutomatedDecisions(
  tx: Queryable,
  siteId: string,
  userId: string,
  page: { limit: number; page: number },
): Promise<{ decisions: AutomatedDecisionView[]; total: number }> {
  const rows = await tx.query<DecisionRow & { total: string }>(sql`
    SELECT r.revision_id, r.collection, r.item_id, r.version, r.event_type, r.actor_id, e.data->'delta' AS delta, e.metadata->'agent' AS agent,
           r.recorded_at, count(*) OVER () AS total
      FROM item_revisions r
      JOIN events e ON e.position = r.position
      JOIN items i ON i.site_id = r.site_id AND i.collection = r.collection AND i.id = r.item_id
     WHERE r.site_id = ${siteId} AND r.actor_kind = 'agent' AND i.user_created = ${userId}
     ORDER BY r.position DESC
     LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  return {
    total: Number(rows[0]?.total ?? 0),
    decisions: rows.map((row) => ({
      revisionId: row.revision_id,
      collection: row.collection,
      itemId: row.item_id,
      version: row.version,
      eventType: row.event_type,
      agentId: row.actor_id,
      // Who the agent acted for and the person who approved it (docs/ai-skills.md); null before provenance was recorded.
      onBehalfOf: row.agent?.onBehalfOf ?? null,
      approvedBy: row.agent?.approvedBy ?? null,
      approvalId: row.agent?.approvalId ?? null,
      changedFields: Object.keys(row.delta ?? {}),
      recordedAt: row.recorded_at.toISOString(),
    })),
  };
}
