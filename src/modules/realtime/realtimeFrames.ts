// The realtime WebSocket frames of the spec, and the client's `subscribe` frame with its filter
// over { action, collection, itemId } (validated by the query language, evaluated in memory).
import { z } from 'zod';
import type { FeedOperation } from '../../../domain/changeFeed/feedEntry.ts';
import type { NotificationContent } from '../../../domain/changeFeed/notification.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../../domain/shared/jsonDepth.ts';
import { resolveFilter, type FieldDefinition, type FilterNode } from '../../query/index.ts';

export interface EventFrame {
  type: 'event';
  collection: string;
  action: FeedOperation;
  itemId: string;
  payload: null;
}

export interface NotificationFrame {
  type: 'notification';
  notification: NotificationContent & { id: string; ts: string };
}

export type ServerFrame = EventFrame | NotificationFrame;

export interface ErrorFrame {
  type: 'error';
  code: string;
  message: string;
  collection?: string;
  path?: (string | number)[];
}

/**
 * A credential or permission change the log recorded, for the realtime connections and GraphQL
 * subscription streams held on every instance (never sent to a client): `session` (a logout, an
 * administrator's or a password change's revocation), `apiKey` (a key revoked), `user` (deleted or
 * suspended: `credentials`; password changed: `sessions`, its login sessions only; role changed:
 * `permissions`), `role` (its admin flag changed or it was deleted), `access` (some grant of the site
 * changed: each holder's permissions are checked again).
 */
export type Revocation =
  | { kind: 'session'; sessionId: string }
  | { kind: 'apiKey'; apiKeyId: string }
  | { kind: 'user'; userId: string; scope: 'credentials' | 'sessions' | 'permissions' }
  | { kind: 'role'; roleId: string }
  | { kind: 'access' };

/** What the tailer publishes for a site: frames in log order, and the revocations of the same events. */
export interface RealtimeMessage {
  siteId: string;
  frames: ServerFrame[];
  /** Absent when the events revoke nothing. */
  revocations?: Revocation[];
}

const FILTER_FIELDS: ReadonlyMap<string, FieldDefinition> = new Map([
  ['action', { field: 'action', type: 'string' }],
  ['collection', { field: 'collection', type: 'string' }],
  ['itemId', { field: 'itemId', type: 'string' }],
]);

const subscribeFrame = z.object({
  type: z.literal('subscribe'),
  collection: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a collection name'),
  filter: z.record(z.string(), z.unknown()).optional(),
});

export type SubscribeRequest = { collection: string; filter: FilterNode | null };

function frameError(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

/** Only action, collection and itemId may be filtered on (the signal carries nothing else). */
function assertFilterFields(filter: unknown, path: (string | number)[]): void {
  if (typeof filter !== 'object' || filter === null) return;
  if (Array.isArray(filter)) {
    filter.forEach((member, index) => assertFilterFields(member, [...path, index]));
    return;
  }
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' || key === '_or') assertFilterFields(value, [...path, key]);
    else if (!key.startsWith('_') && !FILTER_FIELDS.has(key)) throw frameError(`A realtime filter can use action, collection and itemId, not "${key}"`, [...path, key]);
  }
}

/** Parses one client frame; throws AppError (VALIDATION_FAILED with a path) when it is not a valid subscribe. */
export function parseClientFrame(text: string, context: { now: Date; userId: string | null }): SubscribeRequest {
  if (jsonNestsDeeperThan(text)) throw frameError(`A frame nests deeper than ${MAX_JSON_DEPTH} levels`, []);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw frameError('A frame must be JSON', []);
  }
  const parsed = subscribeFrame.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw frameError(issue.path[0] === 'type' ? 'Unknown frame type; send { type: "subscribe", collection, filter? }' : issue.message, issue.path as (string | number)[]);
  }
  const { collection, filter } = parsed.data;
  if (filter === undefined) return { collection, filter: null };
  assertFilterFields(filter, ['filter']);
  const node = resolveFilter(filter, { fields: FILTER_FIELDS, now: context.now, userId: context.userId, path: ['filter'] });
  return { collection, filter: node };
}
