// POST /admin/sar/export: a subject access export, by a site administrator, of a user of the site
// (the account data export, built for that user), of a record holding personal data (the item with
// its sensitive fields and its revisions' metadata), or of every record of a collection that a
// filter names, found as an erasure finds its records (src/modules/erasure/subjectRecords.ts).
// Every export is in the field access log, and so in the audit list (`item.sensitive_read`, whose
// details are the number of records and their collections: never the filter).
import type { Access } from '../../access/access.ts';
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Principal, UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import { parseListQuery } from '../../query/index.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { findSubjectRecords } from '../erasure/subjectRecords.ts';
import { listRevisions } from '../items/historyQueries.ts';
import { getItem, listItems } from '../items/queries.ts';
import { logSensitiveReads } from '../items/sensitiveReads.ts';
import { buildDataExport } from './dataExport.ts';

/** Revisions (newest first) whose metadata a record's export lists at most. */
export const SAR_REVISIONS = 1_000;

/**
 * The collection name under which a user's export is logged: the profile is not a content
 * collection, and a content collection's name starts with a letter, so this one never collides.
 */
export const USERS_LOG_COLLECTION = '_users';

/** The most records an export by filter holds: a wider filter is refused (400 at body.filter), to be narrowed. */
export const MAX_SAR_RECORDS = 100;

export type SarSubject = { userId: string } | { collection: string; itemId: string } | { collection: string; filter: Record<string, unknown> };

/** Who asks (the administrator) and for what request: reads are logged with their metadata. */
export interface SarRequest {
  access: Access;
  principal: Principal;
  metadata: EventMetadata;
}

export async function buildSarExport(context: AppContext, request: SarRequest, subject: SarSubject) {
  const document =
    'userId' in subject
      ? await userExport(context, request, subject.userId)
      : 'filter' in subject
        ? await filterExport(context, request, subject)
        : await recordExport(context, request, subject);
  return { kind: 'subject_access_export' as const, exportedAt: new Date().toISOString(), siteId: request.access.siteId, ...document };
}

/** The account data export of `userId`, built with the administrator's Access (every collection readable). */
async function userExport(context: AppContext, request: SarRequest, userId: string) {
  const siteId = request.access.siteId;
  const [user] = await context.database.withSiteReads(siteId, (tx) =>
    tx.query<{ role_id: string | null; email: string; first_name: string | null; last_name: string | null; avatar: string | null }>(
      sql`SELECT role_id, email, first_name, last_name, avatar FROM users WHERE site_id = ${siteId} AND id = ${userId}`,
    ),
  );
  if (!user) throw errors.notFound(`No user ${userId} in this site`);
  // The subject as a principal: only $CURRENT_USER of their authored items' filter depends on it;
  // what may be read comes from the administrator's Access.
  const subject: UserPrincipal = { kind: 'user', userId, roleId: user.role_id, admin: false, sessionId: null, via: 'session', realm: 'studio' };
  const data = await buildDataExport(context, request.access, subject, request.metadata);
  const profileFields = (['email', 'firstName', 'lastName', 'avatar'] as const).filter((field) => {
    const column = { email: user.email, firstName: user.first_name, lastName: user.last_name, avatar: user.avatar }[field];
    return column !== null;
  });
  await logSensitiveReads(context, siteId, [{ collection: USERS_LOG_COLLECTION, itemId: userId, fields: profileFields.map((field) => ({ field, sensitivity: 'pii' })) }], request.metadata);
  return { subject: { userId }, data };
}

/** The item as the administrator reads it (sensitive fields included) and its revisions' metadata, never their content. */
async function recordExport(context: AppContext, request: SarRequest, subject: { collection: string; itemId: string }) {
  const siteId = request.access.siteId;
  const collection = await context.schemas.collection(siteId, subject.collection);
  // The items read path logs the sensitive fields it returns, with the administrator as actor.
  const { item, version } = await getItem(context, { siteId, collection: collection.name, id: subject.itemId, principal: request.principal, metadata: request.metadata });
  const listed = await context.database.withSiteReads(siteId, (tx) =>
    listRevisions(tx, { siteId, collection: collection.name, itemId: subject.itemId }, { limit: SAR_REVISIONS, page: 1 }),
  );
  if (![...collection.sensitiveFields.keys()].some((field) => field in item)) {
    // No declared pii/phi field was read, yet the administrator named this record as a subject's
    // personal data: the export is logged all the same, each field exported as pii.
    const read: SensitiveRead = { collection: collection.name, itemId: subject.itemId, fields: Object.keys(item).map((field) => ({ field, sensitivity: 'pii' })) };
    await logSensitiveReads(context, siteId, [read], request.metadata);
  }
  return {
    subject: { collection: collection.name, itemId: subject.itemId },
    data: { item, version, revisions: revisionsOf(listed) },
  };
}

/** The revisions' metadata (who, when, which fields), never their content. */
function revisionsOf(listed: Awaited<ReturnType<typeof listRevisions>>) {
  const entries = listed.revisions.map((revision) => ({
    revisionId: revision.revisionId,
    version: revision.version,
    event: revision.event,
    actor: revision.actor,
    timestamp: revision.timestamp,
    requestId: revision.requestId,
    staged: revision.staged,
    changedFields: Object.keys(revision.delta ?? {}),
  }));
  return { entries, total: listed.total, truncated: listed.total > entries.length };
}

/** The records read whole (every field) when none of the collection's pii/phi fields was among them. */
function unloggedReads(collection: CollectionSchema, items: readonly Record<string, unknown>[]): SensitiveRead[] {
  const sensitive = [...collection.sensitiveFields.keys()];
  return items
    .filter((item) => !sensitive.some((field) => field in item))
    .map((item) => ({ collection: collection.name, itemId: String(item.id), fields: Object.keys(item).map((field) => ({ field, sensitivity: 'pii' as const })) }));
}

/**
 * Every record of the collection the filter matches, by the erasure's rules (pii/phi fields
 * compared on their opened values), at most MAX_SAR_RECORDS: each live record as the record form
 * exports it, read in one read (one field access log entry for them all); a soft-deleted match is
 * named by id (its content is not served by the read path until it is restored).
 */
async function filterExport(context: AppContext, request: SarRequest, subject: { collection: string; filter: Record<string, unknown> }) {
  if (Object.keys(subject.filter).length === 0) {
    throw new AppError('VALIDATION_FAILED', 'An export names its subject: an empty filter would export the whole collection', { path: ['body', 'filter'] });
  }
  const siteId = request.access.siteId;
  const collection = await context.schemas.collection(siteId, subject.collection);
  const found = { siteId, collection, filter: subject.filter, principal: request.principal, metadata: request.metadata, bound: MAX_SAR_RECORDS };
  const ids = await findSubjectRecords(context, found);
  const items = ids.length === 0 ? [] : await readRecords(context, request, collection, ids);
  await logSensitiveReads(context, siteId, unloggedReads(collection, items), request.metadata);
  const live = new Set(items.map((item) => String(item.id)));
  const records = await context.database.withSiteReads(siteId, async (tx) => {
    const exported = [];
    for (const item of items) {
      const listed = await listRevisions(tx, { siteId, collection: collection.name, itemId: String(item.id) }, { limit: SAR_REVISIONS, page: 1 });
      exported.push({ item, revisions: revisionsOf(listed) });
    }
    return exported;
  });
  return {
    subject: { collection: collection.name, filter: subject.filter },
    data: { recordCount: ids.length, records, deletedRecords: ids.filter((id) => !live.has(id)) },
  };
}

/** The live records among `ids`, through the items' read path (which logs the pii/phi fields it returns). */
async function readRecords(context: AppContext, request: SarRequest, collection: CollectionSchema, ids: readonly string[]): Promise<Record<string, unknown>[]> {
  const query = parseListQuery({ filter: JSON.stringify({ id: { _in: ids } }), sort: 'id', limit: String(ids.length), meta: 'none' });
  const result = await listItems(context, { siteId: request.access.siteId, collection: collection.name, principal: request.principal, metadata: request.metadata, query });
  // A singleton collection answers its one item, not a list.
  const data = result.data as Record<string, unknown>[] | Record<string, unknown> | null;
  return Array.isArray(data) ? data : data ? [data] : [];
}
