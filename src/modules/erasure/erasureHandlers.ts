// The erasure workflow (docs/privacy.md): a request stores the subject's keyed hash and the ids of
// the records its filter matched; a second site administrator confirms it while `erasureDualControl`
// is on; execution hard-deletes those records and destroys their sealed pii/phi values, in one
// transaction, so that no reference in the log or in any read model opens any more.
import { createHmac } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { assertExecutable, erasureDecider, erasureStreamId, type ErasureCommand } from '../../../domain/privacy/erasure.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { deriveKey } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { userPrincipal, type Principal } from '../../auth/principal.ts';
import { handleCommand, handleCommandIn, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { deleteIn } from '../items/deleteItem.ts';
import { findSubjectRecords, MAX_ERASURE_RECORDS } from './subjectRecords.ts';
import { findErasure, type ErasureRequest } from './erasureRequests.ts';
import { inItemWriteTransaction } from '../items/itemStreams.ts';

export type ErasureContext = Pick<AppContext, 'database' | 'projections' | 'schemas' | 'keyRing' | 'config' | 'itemHooks'>;

/**
 * The subject as stored: an HMAC of the site, collection and filter under a key derived from
 * SVC_SECRET (the same subject in two sites gives two hashes, so receipts of sites do not link).
 */
export function subjectHashOf(secret: string, siteId: string, collection: string, filter: unknown): string {
  return createHmac('sha256', Buffer.from(deriveKey(secret, 'erasure:subject'))).update(canonicalJson({ siteId, collection, filter })).digest('hex');
}

async function dualControlOn(tx: Queryable, siteId: string): Promise<boolean> {
  const [row] = await tx.query<{ value: unknown }>(sql`SELECT value FROM settings WHERE site_id = ${siteId} AND key = 'erasureDualControl'`);
  return row?.value !== false;
}

function actorOf(metadata: EventMetadata): string {
  return metadata.actor.id ?? metadata.actor.kind;
}

/** An erasure request of the site (404 NOT_FOUND when it has none of that id). */
export async function readErasure(context: ErasureContext, siteId: string, id: string): Promise<ErasureRequest> {
  const found = await context.database.withSiteReads(siteId, (tx) => findErasure(tx, siteId, id));
  if (!found) throw new AppError('NOT_FOUND', `Erasure "${id}" not found`);
  return found;
}

export interface ErasureInput {
  collection: string;
  filter: Record<string, unknown>;
  reason: string;
}

export async function requestErasure(context: ErasureContext, siteId: string, principal: Principal, input: ErasureInput, metadata: EventMetadata): Promise<ErasureRequest> {
  if (principal.kind === 'user' && principal.impersonatorId) {
    // Dual control counts people: the administrator behind an impersonated session would request as
    // one administrator and could confirm as themselves.
    throw new AppError('PERMISSION_DENIED', 'An erasure is requested by an administrator signed in as themselves, not through impersonation');
  }
  if (Object.keys(input.filter).length === 0) {
    throw new AppError('VALIDATION_FAILED', 'An erasure names its subject: an empty filter would erase the whole collection', { path: ['body', 'filter'] });
  }
  const collection = await context.schemas.collection(siteId, input.collection);
  const recordIds = await findSubjectRecords(context, { siteId, collection, filter: input.filter, principal, metadata, bound: MAX_ERASURE_RECORDS });
  const erasureId = uuidv7();
  await handleCommand(context, {
    siteId,
    streamId: erasureStreamId(siteId, erasureId),
    decider: erasureDecider,
    command: {
      type: 'request',
      erasureId,
      collection: collection.name,
      subjectHash: subjectHashOf(context.config.SVC_SECRET, siteId, collection.name, input.filter),
      reason: input.reason,
      requestedBy: actorOf(metadata),
      recordIds,
    },
    metadata,
  });
  return readErasure(context, siteId, erasureId);
}

export async function confirmErasure(context: ErasureContext, siteId: string, principal: Principal, erasureId: string, metadata: EventMetadata): Promise<ErasureRequest> {
  // The command's access (personAdmin) admits a site administrator signed in as themselves only.
  const confirmer = userPrincipal(principal);
  await inSiteTransaction(context, siteId, async (tx) => {
    const command: ErasureCommand = {
      type: 'confirm',
      erasureId,
      confirmerId: actorOf(metadata),
      impersonatorId: confirmer.impersonatorId ?? null,
      dualControl: await dualControlOn(tx, siteId),
    };
    await handleCommandIn(tx, context.projections, { siteId, streamId: erasureStreamId(siteId, erasureId), decider: erasureDecider, command, metadata, lock: true });
  });
  return readErasure(context, siteId, erasureId);
}

/** Hard-deletes the records that still exist and destroys every sealed value of all of them. */
async function eraseRecords(context: ErasureContext, tx: Queryable, siteId: string, collection: CollectionSchema, ids: readonly string[], erasureId: string, metadata: EventMetadata) {
  const existing = await tx.query<{ id: string }>(sql`SELECT id FROM items WHERE site_id = ${siteId} AND collection = ${collection.name} AND id = ANY(${ids}::text[]) ORDER BY id`);
  for (const { id } of existing) {
    await deleteIn(context, tx, { siteId, collection, itemId: id, metadata, hard: true, cause: { erasureId } });
  }
  const shredded = await tx.query<{ item_id: string }>(sql`
    DELETE FROM sensitive_values WHERE site_id = ${siteId} AND collection = ${collection.name} AND item_id = ANY(${ids}::text[]) RETURNING item_id`);
  const erased = new Set([...existing.map((row) => row.id), ...shredded.map((row) => row.item_id)]);
  return { erasedIds: ids.filter((id) => erased.has(id)), shreddedValues: shredded.length };
}

export async function executeErasure(context: ErasureContext, siteId: string, erasureId: string, metadata: EventMetadata): Promise<ErasureRequest> {
  // An item-write transaction: the purged items' after-commit hooks run once it has committed.
  await inItemWriteTransaction(context, siteId, async (tx) => {
    const dualControl = await dualControlOn(tx, siteId);
    // The workflow: open the erasure's command, erase its records, then decide the execution.
    const opened = await openCommandIn(tx, context.projections, {
      siteId,
      streamId: erasureStreamId(siteId, erasureId),
      decider: erasureDecider,
      lock: true,
      check: async (state) => assertExecutable(state, erasureId, dualControl),
      metadata,
    });
    const collection = await context.schemas.collection(siteId, opened.state.collection!);
    const erased = await eraseRecords(context, tx, siteId, collection, opened.state.recordIds, erasureId, metadata);
    await opened.decide({ type: 'execute', erasureId, dualControl, ...erased } satisfies ErasureCommand);
  });
  return readErasure(context, siteId, erasureId);
}
