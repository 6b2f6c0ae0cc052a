// POST /admin/sar/export: a subject access export, by a site administrator, of a user of the site
// (the account data export, built for that user) or of a record holding personal data (the item with
// its sensitive fields and its revisions' metadata). Every export is in the field access log.
import type { Access } from '../../access/access.ts';
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import { errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Principal, UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import { listRevisions } from '../items/historyQueries.ts';
import { getItem } from '../items/queries.ts';
import { logSensitiveReads } from '../items/sensitiveReads.ts';
import { buildDataExport } from './dataExport.ts';

/** Revisions (newest first) whose metadata a record's export lists at most. */
export const SAR_REVISIONS = 1_000;

/**
 * The collection name under which a user's export is logged: the profile is not a content
 * collection, and a content collection's name starts with a letter, so this one never collides.
 */
export const USERS_LOG_COLLECTION = '_users';

export type SarSubject = { userId: string } | { collection: string; itemId: string };

/** Who asks (the administrator) and for what request: reads are logged with their metadata. */
export interface SarRequest {
  access: Access;
  principal: Principal;
  metadata: EventMetadata;
}

export async function buildSarExport(context: AppContext, request: SarRequest, subject: SarSubject) {
  const document = 'userId' in subject ? await userExport(context, request, subject.userId) : await recordExport(context, request, subject);
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
  const revisions = listed.revisions.map((revision) => ({
    revisionId: revision.revisionId,
    version: revision.version,
    event: revision.event,
    actor: revision.actor,
    timestamp: revision.timestamp,
    requestId: revision.requestId,
    staged: revision.staged,
    changedFields: Object.keys(revision.delta ?? {}),
  }));
  return {
    subject: { collection: collection.name, itemId: subject.itemId },
    data: { item, version, revisions: { entries: revisions, total: listed.total, truncated: listed.total > revisions.length } },
  };
}
