// An item of a collection: created, changed (PATCH merges, PUT replaces; or its draft changed),
// soft-deleted, restored, hard-deleted. Every event carries the whole item after the change
// (`snapshot`), what changed (`delta`) and the draft if there is one, so the state after an item's
// last event is the state of its whole stream: the write path reads only that event.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { ITEM_EVENT_TYPES, type ItemEvent, type ItemEventData, itemEventSchemas, type ItemEventType, type ItemSnapshot } from './events.ts';
import { convertBody, type FieldConversion } from './fieldTypeChange.ts';
import { invalidValue } from './fieldValues.ts';
import { STRUCTURAL_KEY_SET } from './schemaModel.ts';

export { ITEM_EVENT_TYPES, type ItemEvent, type ItemEventData, type ItemEventType, type ItemSnapshot };

/** What a write may set: `status`, `sort` and content fields. */
export type ItemBody = Record<string, unknown>;

export interface ItemState {
  lifecycle: 'absent' | 'live' | 'deleted' | 'purged';
  snapshot: ItemSnapshot | null;
  draft: ItemBody | null;
}

/** Checked input (see itemInput.ts) with hashes already computed. */
export interface ItemChanges {
  values: Record<string, unknown>;
  keepHashes: readonly string[];
  translations: Record<string, Record<string, unknown>>;
}

interface Acting {
  collection: string;
  itemId: string;
  actorId: string | null;
  /** ISO time of the change. */
  now: string;
  /**
   * The collection's type changes since the item's last event, in log order: the item as loaded
   * (its last event's snapshot and draft) holds its values as they were, while the read models
   * converted theirs when they folded each change. The command is decided on the converted item, so
   * the new event carries what the read models hold (docs/content.md "Changing a field's type").
   */
  conversions?: readonly FieldConversion[];
}

export type ItemCommand =
  | (Acting & { type: 'createItem'; changes: ItemChanges; required: readonly string[] })
  | (Acting & {
      type: 'updateItem';
      changes: ItemChanges;
      mode: 'patch' | 'replace';
      /** main: the item itself; draft: its draft (X-Svc-Draft), which normal reads do not show. */
      target: 'main' | 'draft';
      required: readonly string[];
      /**
       * The collection's declared content fields. A value a removed field left in the item is not
       * carried into the new snapshot, so it reaches no read model (search, revisions, feed) again.
       */
      fields: readonly string[];
      eventType: 'item.updated' | 'item.reverted' | 'item.promoted';
      cause?: Record<string, unknown>;
      /** A soft-deleted item comes back first (`item.restored`): how a revert undoes a delete. */
      restore?: boolean;
    })
  | (Acting & { type: 'deleteItem' })
  | (Acting & { type: 'restoreItem' })
  | (Acting & { type: 'hardDeleteItem'; cause?: Record<string, unknown> });

export const initialItemState = (): ItemState => ({ lifecycle: 'absent', snapshot: null, draft: null });

/** `status`, `sort` and the content fields of a snapshot. */
export function bodyOf(snapshot: ItemSnapshot): ItemBody {
  const body: ItemBody = { status: snapshot.status, sort: snapshot.sort };
  for (const [key, value] of Object.entries(snapshot)) if (!STRUCTURAL_KEY_SET.has(key)) body[key] = value;
  return body;
}

/** `status`, `sort` and the values of the declared fields of a body. */
function declaredOnly(body: ItemBody, fields: readonly string[]): ItemBody {
  const kept: ItemBody = { status: body.status ?? null, sort: body.sort ?? null };
  for (const field of fields) if (Object.hasOwn(body, field)) kept[field] = body[field];
  return kept;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body after a write: PATCH keeps what it does not name, PUT keeps only hashes sent as the mask. */
export function applyChanges(base: ItemBody | null, changes: ItemChanges, mode: 'create' | 'patch' | 'replace'): ItemBody {
  const result: ItemBody = mode === 'patch' && base ? { ...base } : { status: null, sort: null };
  for (const [key, value] of Object.entries(changes.values)) result[key] = value;
  if (base) for (const key of changes.keepHashes) result[key] = base[key] ?? null;
  for (const [key, languages] of Object.entries(changes.translations)) {
    const current = base && isPlainObject(base[key]) ? (base[key] as Record<string, unknown>) : {};
    result[key] = { ...current, ...languages };
  }
  return result;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keys whose value differs between two bodies, with their new values (null when removed). */
export function deltaOf(before: ItemBody | null, after: ItemBody): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after)]);
  for (const key of keys) {
    const previous = before?.[key] ?? null;
    const next = after[key] ?? null;
    if (!sameValue(previous, next)) delta[key] = next;
  }
  return delta;
}

function snapshotOf(
  base: Pick<ItemSnapshot, 'id' | 'createdAt' | 'userCreated' | 'deletedAt'>,
  body: ItemBody,
  updatedAt: string,
  userUpdated: string | null,
): ItemSnapshot {
  const snapshot: ItemSnapshot = {
    id: base.id,
    status: (body.status as string | null) ?? null,
    sort: (body.sort as number | null) ?? null,
    createdAt: base.createdAt,
    updatedAt,
    userCreated: base.userCreated,
    userUpdated,
    deletedAt: base.deletedAt,
  };
  for (const [key, value] of Object.entries(body)) {
    if (!STRUCTURAL_KEY_SET.has(key) && value !== undefined) snapshot[key] = value;
  }
  return snapshot;
}

function checkRequired(body: ItemBody, required: readonly string[], touched: ReadonlySet<string> | null): void {
  for (const name of required) {
    if (touched && !touched.has(name)) continue;
    if (body[name] === null || body[name] === undefined) throw invalidValue(`Field "${name}" is required`, ['body', name]);
  }
}

function actingOf(command: Acting): Acting {
  return { collection: command.collection, itemId: command.itemId, actorId: command.actorId, now: command.now };
}

/** The item with its values converted by the type changes since its last event (Acting.conversions). */
export function convertedState(state: ItemState, conversions: readonly FieldConversion[] | undefined): ItemState {
  if (!conversions?.length || !state.snapshot) return state;
  return { ...state, snapshot: convertBody(state.snapshot, conversions), draft: state.draft ? convertBody(state.draft, conversions) : null };
}

function notFound(command: Acting): AppError {
  return new AppError('RECORD_NOT_FOUND', `Item "${command.itemId}" of "${command.collection}" not found`);
}

function eventData(command: Acting, snapshot: ItemSnapshot, delta: Record<string, unknown>, draft: ItemBody | null, cause?: Record<string, unknown>): ItemEventData {
  const data: ItemEventData = { collection: command.collection, itemId: command.itemId, snapshot, delta };
  if (cause) data.cause = cause;
  if (draft) data.draft = draft;
  return data;
}

export const itemDecider: Decider<ItemState, ItemCommand, ItemEvent> = {
  eventTypes: eventTypesOf(itemEventSchemas),
  initialState: initialItemState,
  evolve(state, event) {
    const { data } = event;
    switch (event.type) {
      case 'item.created':
      case 'item.updated':
      case 'item.restored':
      case 'item.reverted':
      case 'item.promoted':
        return { lifecycle: 'live', snapshot: data.snapshot, draft: data.draft ?? null };
      case 'item.deleted':
        return { lifecycle: 'deleted', snapshot: data.snapshot, draft: data.draft ?? null };
      case 'item.hard_deleted':
        return { lifecycle: 'purged', snapshot: data.snapshot, draft: null };
      default:
        return state;
    }
  },
  decide(command, loaded) {
    const state = convertedState(loaded, command.conversions);
    switch (command.type) {
      case 'createItem': {
        if (state.lifecycle !== 'absent') {
          throw new AppError('CONFLICT', `An item "${command.itemId}" of "${command.collection}" exists or existed`, { path: ['body', 'id'] });
        }
        const body = applyChanges(null, command.changes, 'create');
        checkRequired(body, command.required, null);
        const snapshot = snapshotOf(
          { id: command.itemId, createdAt: command.now, userCreated: command.actorId, deletedAt: null },
          body,
          command.now,
          command.actorId,
        );
        return [{ type: 'item.created', data: eventData(command, snapshot, deltaOf(null, body), null) }];
      }
      case 'updateItem': {
        if (command.restore && state.lifecycle === 'deleted') {
          const restored = itemDecider.decide({ ...actingOf(command), type: 'restoreItem' }, state);
          const after = restored.reduce((current, event) => itemDecider.evolve(current, event), state);
          return [...restored, ...itemDecider.decide({ ...command, restore: false, conversions: [] }, after)];
        }
        if (state.lifecycle !== 'live' || !state.snapshot) throw notFound(command);
        const touched = command.mode === 'patch' ? new Set([...Object.keys(command.changes.values), ...Object.keys(command.changes.translations)]) : null;
        const main = declaredOnly(bodyOf(state.snapshot), command.fields);
        if (command.target === 'draft') {
          const base = state.draft ? declaredOnly(state.draft, command.fields) : main;
          const draft = applyChanges(base, command.changes, command.mode);
          checkRequired(draft, command.required, touched);
          const delta = deltaOf(base, draft);
          if (Object.keys(delta).length === 0 && state.draft) return [];
          return [{ type: 'item.updated', data: eventData(command, state.snapshot, delta, draft, { ...command.cause, draft: true }) }];
        }
        const body = applyChanges(main, command.changes, command.mode);
        checkRequired(body, command.required, touched);
        const delta = deltaOf(main, body);
        if (Object.keys(delta).length === 0 && command.eventType === 'item.updated') return [];
        const snapshot = snapshotOf(state.snapshot, body, command.now, command.actorId);
        return [{ type: command.eventType, data: eventData(command, snapshot, delta, state.draft, command.cause) }];
      }
      case 'deleteItem': {
        if (state.lifecycle !== 'live' || !state.snapshot) throw notFound(command);
        const snapshot: ItemSnapshot = { ...state.snapshot, deletedAt: command.now, updatedAt: command.now, userUpdated: command.actorId };
        return [{ type: 'item.deleted', data: eventData(command, snapshot, { deletedAt: command.now }, state.draft) }];
      }
      case 'restoreItem': {
        if (state.lifecycle !== 'deleted' || !state.snapshot) throw notFound(command);
        const snapshot: ItemSnapshot = { ...state.snapshot, deletedAt: null, updatedAt: command.now, userUpdated: command.actorId };
        return [{ type: 'item.restored', data: eventData(command, snapshot, { deletedAt: null }, state.draft) }];
      }
      case 'hardDeleteItem': {
        if ((state.lifecycle !== 'live' && state.lifecycle !== 'deleted') || !state.snapshot) throw notFound(command);
        return [{ type: 'item.hard_deleted', data: eventData(command, state.snapshot, {}, null, command.cause) }];
      }
    }
  },
};
