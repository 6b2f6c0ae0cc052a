// Helpers for change-feed, realtime and push tests: contract-shaped content events appended
// straight to the log (as the items routes would), a frontend-realm token, and waiting for the
// change feed to catch up.
import { randomUUID } from 'node:crypto';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { appendToStream, readLogHead } from '../../../infra/eventstore/eventStore.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { changeFeedProjection } from '../../../projections/changeFeedProjection.ts';
import { createAccessTokenIssuer } from '../../../src/auth/accessTokens.ts';
import { readCheckpoint, stepAsyncProjection } from '../../../src/runtime/projectionRunner.ts';
import type { TestService, TestSite } from '../../support/testService.ts';

export type ItemEventType = 'item.created' | 'item.updated' | 'item.deleted' | 'item.restored' | 'item.reverted' | 'item.promoted' | 'item.hard_deleted';

export interface ItemChange {
  type: ItemEventType;
  collection: string;
  itemId?: string;
  fields?: Record<string, unknown>;
  actorId?: string | null;
}

function snapshotOf(change: ItemChange, itemId: string, at: string): Record<string, unknown> {
  return {
    id: itemId,
    status: 'draft',
    sort: null,
    createdAt: at,
    updatedAt: at,
    userCreated: change.actorId ?? null,
    userUpdated: change.actorId ?? null,
    deletedAt: change.type === 'item.deleted' ? at : null,
    ...change.fields,
  };
}

/** Appends one contract-shaped item event; returns the item id. */
export async function appendItemEvent(service: TestService, siteId: string, change: ItemChange): Promise<string> {
  const itemId = change.itemId ?? randomUUID();
  const at = new Date().toISOString();
  const snapshot = snapshotOf(change, itemId, at);
  const delta = change.type === 'item.deleted' ? { deletedAt: at } : (change.fields ?? {});
  const metadata: EventMetadata = { actor: { kind: 'user', id: change.actorId ?? null }, requestId: `req-${randomUUID()}` };
  await service.context.database.withSite(siteId, (tx) =>
    appendToStream(tx, {
      siteId,
      streamId: streamId(siteId, 'item', change.collection, itemId),
      expectedVersion: 'any',
      events: [{ type: change.type, data: { collection: change.collection, itemId, snapshot, delta } }],
      metadata,
    }),
  );
  return itemId;
}

/** Appends any events on one stream in one transaction (schema events, notifications, bulk items). */
export async function appendEvents(
  service: TestService,
  siteId: string,
  stream: string,
  events: { type: string; data: Record<string, unknown> }[],
  actorId: string | null = null,
): Promise<void> {
  await service.context.database.withSite(siteId, (tx) =>
    appendToStream(tx, { siteId, streamId: stream, expectedVersion: 'any', events, metadata: { actor: { kind: 'user', id: actorId } } }),
  );
}

/** The admin's session, re-issued as a frontend-realm token. */
export async function frontendToken(service: TestService, site: TestSite): Promise<string> {
  const claims = JSON.parse(Buffer.from(site.adminToken.split('.')[1]!, 'base64url').toString('utf8')) as { sid: string | null; tv: number };
  const issuer = createAccessTokenIssuer(service.context.config.SVC_SECRET, 600);
  const { token } = await issuer.issue({ siteId: site.siteId, userId: site.adminUserId, sessionId: claims.sid, tokenVersion: claims.tv, realm: 'frontend' });
  return token;
}

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Polls `read` until `accept` holds, and answers the value that satisfied it. Only for server state
 * that no event announces to the test (a reactor's bookkeeping after the receiver already saw the
 * request). Throws when `accept` still does not hold after `timeoutMs`: a caller never gets a value
 * that failed the condition, so a wait cannot pass silently.
 */
export async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${accept.toString()}; the last value read: ${printable(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function printable(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

/**
 * Waits until the change-feed projection has applied the log as it stood when called (like
 * `daemon.drain()`, for this projection only, so another projection's failure does not fail it).
 * `service` is a test service, or `{ context }` of a context that runs no server.
 */
export async function feedCaughtUp(service: Pick<TestService, 'context'>, timeoutMs = 20_000): Promise<void> {
  const { database } = service.context;
  const deadline = Date.now() + timeoutMs;
  const [called] = await database.query<{ xmax: string }>(sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax`);
  for (;;) {
    const [now] = await database.query<{ xmin: string }>(sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
    if (BigInt(now!.xmin) >= BigInt(called!.xmax)) break;
    if (Date.now() > deadline) throw new Error('older transactions did not end');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const target = await readLogHead(database);
  for (;;) {
    const checkpoint = await readCheckpoint(database, changeFeedProjection.name);
    const behind = BigInt(checkpoint.txId) < BigInt(target.txId) || (checkpoint.txId === target.txId && checkpoint.position < target.position);
    if (!behind) return;
    if (Date.now() > deadline) throw new Error('the change feed did not catch up');
    await stepAsyncProjection(database, changeFeedProjection);
  }
}
