// GET /me/data-export: every piece of personal data the service holds about the caller, in one
// JSON document (docs/privacy.md lists what is in it and its caps).
import type { Access } from '../../access/access.ts';
import { guardItemReadBy } from '../../access/itemGuards.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { parseListQuery } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import { listItems } from '../items/queries.ts';
import { listAutomatedDecisions, listConsents, readRestriction } from './queries.ts';

/** Items per collection: one page of GET /items/:collection at its largest; the rest is read there with filter[userCreated][_eq]=<id>. */
export const EXPORT_ITEMS_PER_COLLECTION = 200;
/** Audit entries (newest first) and automated decisions at most. */
export const EXPORT_AUDIT_ENTRIES = 10_000;
export const EXPORT_AUTOMATED_DECISIONS = 200;

const iso = (value: Date | null) => value?.toISOString() ?? null;

async function personalRecords(tx: Queryable, siteId: string, userId: string) {
  const [profile] = await tx.query<Record<string, Date | string | null> & { preferences: Record<string, unknown> }>(sql`
    SELECT id, email, first_name, last_name, avatar, role_id, status, email_verified_at, created_at, updated_at, preferences
      FROM users WHERE site_id = ${siteId} AND id = ${userId}`);
  const sessions = await tx.query<Record<string, Date | string | null>>(sql`
    SELECT id, user_agent, ip, impersonator_id, created_at, last_used_at, expires_at, revoked_at, revoked_reason
      FROM sessions WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY created_at DESC, id`);
  const apiKeys = await tx.query<Record<string, Date | string | null>>(sql`
    SELECT id, name, prefix, created_at, revoked_at FROM api_keys WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY created_at, id`);
  const identities = await tx.query<Record<string, Date | string>>(sql`
    SELECT issuer_id, external_id, linked_at FROM user_identities WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY linked_at`);
  const pushSubscriptions = await tx.query<Record<string, Date | string>>(sql`
    SELECT id, endpoint, created_at, updated_at FROM push_subscriptions WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY created_at, id`);
  const audit = await tx.query<Record<string, Date | string | number | null>>(sql`
    SELECT event_id, action, actor_kind, impersonator_id, target, request_id, occurred_at
      FROM audit_log WHERE site_id = ${siteId} AND actor_id = ${userId}
     ORDER BY position DESC LIMIT ${EXPORT_AUDIT_ENTRIES + 1}`);
  return {
    profile: profile && {
      id: profile.id,
      email: profile.email,
      firstName: profile.first_name,
      lastName: profile.last_name,
      avatar: profile.avatar,
      roleId: profile.role_id,
      status: profile.status,
      emailVerifiedAt: iso(profile.email_verified_at as Date | null),
      createdAt: iso(profile.created_at as Date),
      updatedAt: iso(profile.updated_at as Date),
    },
    preferences: profile ? { saveAction: null, ...profile.preferences } : null,
    consents: await listConsents(tx, siteId, userId),
    restriction: await readRestriction(tx, siteId, userId),
    // Redacted: never the refresh-token hash.
    sessions: sessions.map((row) => ({
      id: row.id,
      userAgent: row.user_agent,
      ip: row.ip,
      impersonatorId: row.impersonator_id,
      createdAt: iso(row.created_at as Date),
      lastUsedAt: iso(row.last_used_at as Date),
      expiresAt: iso(row.expires_at as Date),
      revokedAt: iso(row.revoked_at as Date | null),
      revokedReason: row.revoked_reason,
    })),
    apiKeys: apiKeys.map((row) => ({ id: row.id, name: row.name, prefix: row.prefix, createdAt: iso(row.created_at as Date), revokedAt: iso(row.revoked_at as Date | null) })),
    externalIdentities: identities.map((row) => ({ issuerId: row.issuer_id, externalId: row.external_id, linkedAt: iso(row.linked_at as Date) })),
    pushSubscriptions: pushSubscriptions.map((row) => ({ id: row.id, endpoint: row.endpoint, createdAt: iso(row.created_at as Date), updatedAt: iso(row.updated_at as Date) })),
    automatedDecisions: (await listAutomatedDecisions(tx, siteId, userId, { limit: EXPORT_AUTOMATED_DECISIONS, page: 1 })).decisions,
    audit: {
      entries: audit.slice(0, EXPORT_AUDIT_ENTRIES).map((row) => ({
        // No log position: positions are global, their gaps would count other sites' writes.
        eventId: row.event_id,
        action: row.action,
        actorKind: row.actor_kind,
        impersonatorId: row.impersonator_id,
        target: row.target,
        requestId: row.request_id,
        occurredAt: iso(row.occurred_at as Date),
      })),
      truncated: audit.length > EXPORT_AUDIT_ENTRIES,
    },
  };
}

interface AuthoredItems {
  collections: Record<string, { data: unknown[]; total: number; truncated: boolean }>;
  /** Collections the caller may not read now: REST would refuse them, so the export leaves them out. */
  withheldCollections: string[];
}

/** The items the caller created, per collection, as GET /items/:collection gives them to the caller. */
async function authoredItems(context: AppContext, access: Access, principal: UserPrincipal, metadata: EventMetadata): Promise<AuthoredItems> {
  const { siteId, userId } = { siteId: access.siteId, userId: principal.userId };
  const schema = await context.schemas.site(siteId);
  const query = parseListQuery({ filter: JSON.stringify({ userCreated: { _eq: userId } }), limit: String(EXPORT_ITEMS_PER_COLLECTION), sort: 'createdAt' });
  const result: AuthoredItems = { collections: {}, withheldCollections: [] };
  for (const collection of [...schema.collections.keys()].sort()) {
    let restrictions;
    try {
      restrictions = await guardItemReadBy(context, access, collection, query);
    } catch (error) {
      if (error instanceof AppError && error.code === 'PERMISSION_DENIED') {
        result.withheldCollections.push(collection);
        continue;
      }
      throw error;
    }
    const page = await listItems(context, { siteId, collection, query, restrictions, principal, metadata });
    const data = Array.isArray(page.data) ? page.data : page.data === null || page.data === undefined ? [] : [page.data];
    if (data.length === 0) continue;
    const total = page.meta?.total ?? data.length;
    result.collections[collection] = { data, total, truncated: total > data.length };
  }
  return result;
}

export async function buildDataExport(context: AppContext, access: Access, principal: UserPrincipal, metadata: EventMetadata) {
  const siteId = access.siteId;
  const records = await context.database.withSiteReads(siteId, (tx) => personalRecords(tx, siteId, principal.userId));
  return {
    exportedAt: new Date().toISOString(),
    siteId,
    userId: principal.userId,
    ...records,
    items: await authoredItems(context, access, principal, metadata),
  };
}
