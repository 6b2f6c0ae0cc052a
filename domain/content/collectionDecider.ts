// A collection of a site and its fields: one stream per collection (<site>/collection/<name>).
// Created (with its first fields), its meta updated, fields added, changed and removed, soft-deleted.
// Applying a whole schema emits only the differences, so applying the same schema twice emits nothing.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { COLLECTION_EVENT_TYPES, type CollectionEvent, collectionEventSchemas, FIELD_EVENT_TYPES } from './events.ts';
import { checkFieldDefinition, toCollectionMeta, patchContentField, type CollectionMetaInput, type FieldPatchInput } from './schemaInput.ts';
import { DEFAULT_COLLECTION_META, type CollectionMeta, type ContentField } from './schemaModel.ts';

export { COLLECTION_EVENT_TYPES, FIELD_EVENT_TYPES, type CollectionEvent };

export type CollectionCommand =
  | { type: 'createCollection'; collection: string; meta: CollectionMeta; fields: readonly ContentField[] }
  | { type: 'updateCollection'; collection: string; meta: CollectionMetaInput }
  | { type: 'deleteCollection'; collection: string }
  | { type: 'addField'; collection: string; field: ContentField }
  | { type: 'updateField'; collection: string; field: string; patch: FieldPatchInput }
  | { type: 'removeField'; collection: string; field: string }
  /** The collection as a whole: created if absent, then meta and fields brought to exactly this. */
  | { type: 'applySchema'; collection: string; meta: CollectionMetaInput | null; fields: readonly ContentField[] };

export interface CollectionState {
  lifecycle: 'absent' | 'active' | 'deleted';
  meta: CollectionMeta;
  /** Fields by name, in the order they were added. */
  fields: ReadonlyMap<string, ContentField>;
  /**
   * Removed fields as they last were. Their values stay in the items and their history, so a name
   * comes back only with the same type and translatable option (reads would meet values of another
   * type: a text under a number's cast).
   */
  removed: ReadonlyMap<string, ContentField>;
}

export interface FieldChange {
  field: string;
  /** Properties that differ, each `{ from, to }`. */
  changes: Record<string, { from: unknown; to: unknown }>;
}

export interface CollectionSchemaDiff {
  status: 'create' | 'update' | 'unchanged';
  meta: Record<string, { from: unknown; to: unknown }>;
  fields: { added: ContentField[]; updated: FieldChange[]; removed: string[] };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Canonical JSON of a field: keys in a fixed order, so equal fields compare equal however they were written. */
function canonicalField(field: ContentField): ContentField {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(field.options).sort()) options[key] = field.options[key];
  return {
    field: field.field,
    type: field.type,
    interface: field.interface,
    display: field.display,
    options,
    required: field.required,
    sort: field.sort,
    sensitivity: field.sensitivity,
    indexed: field.indexed,
    note: field.note,
  };
}

function fieldChanges(current: ContentField, desired: ContentField): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const from = canonicalField(current) as unknown as Record<string, unknown>;
  const to = canonicalField(desired) as unknown as Record<string, unknown>;
  for (const key of Object.keys(to)) if (!sameJson(from[key], to[key])) changes[key] = { from: from[key], to: to[key] };
  return changes;
}

function metaChanges(current: CollectionMeta, desired: CollectionMeta): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(desired) as (keyof CollectionMeta)[]) {
    if (!sameJson(current[key], desired[key])) changes[key] = { from: current[key], to: desired[key] };
  }
  return changes;
}

/** What applying `desired` to a collection in `state` would change. Meta null keeps the current meta. */
export function diffCollectionSchema(state: CollectionState, desired: { meta: CollectionMetaInput | null; fields: readonly ContentField[] }): CollectionSchemaDiff {
  const exists = state.lifecycle === 'active';
  const currentMeta = exists ? state.meta : DEFAULT_COLLECTION_META;
  const targetMeta = desired.meta ? toCollectionMeta(desired.meta, currentMeta) : currentMeta;
  const meta = metaChanges(currentMeta, targetMeta);
  const currentFields = exists ? state.fields : new Map<string, ContentField>();
  const added: ContentField[] = [];
  const updated: FieldChange[] = [];
  for (const field of desired.fields) {
    const current = currentFields.get(field.field);
    if (!current) {
      added.push(canonicalField(field));
      continue;
    }
    const changes = fieldChanges(current, field);
    if (Object.keys(changes).length > 0) updated.push({ field: field.field, changes });
  }
  const wanted = new Set(desired.fields.map((field) => field.field));
  const removed = [...currentFields.keys()].filter((name) => !wanted.has(name));
  const changed = Object.keys(meta).length > 0 || added.length > 0 || updated.length > 0 || removed.length > 0;
  return { status: !exists ? 'create' : changed ? 'update' : 'unchanged', meta, fields: { added, updated, removed } };
}

function isTranslatable(field: ContentField): boolean {
  return field.options.translatable === true;
}

/** A field may take the name of a removed one only with the removed one's storage. */
function refuseReshapedReturn(state: CollectionState, field: ContentField, path: (string | number)[]): void {
  const removed = state.removed.get(field.field);
  if (!removed || (removed.type === field.type && isTranslatable(removed) === isTranslatable(field))) return;
  const what = removed.type === field.type ? (isTranslatable(removed) ? 'translatable' : 'not translatable') : `of type ${removed.type}`;
  throw new AppError('CONFLICT', `"${field.field}" was a field ${what}; its values remain in the items' history, so it can only come back as it was`, {
    path: [...path, removed.type === field.type ? 'options' : 'type'],
  });
}

/** A field's update; a change of its type says so (`typeChange`), for the read models that convert its values. */
function fieldUpdated(collection: string, current: ContentField, next: ContentField): CollectionEvent {
  if (next.type === current.type) return { type: 'field.updated', data: { collection, field: next } };
  return { type: 'field.updated', data: { collection, field: next, typeChange: { from: current.type, to: next.type } } };
}

function notFound(collection: string): AppError {
  return new AppError('NOT_FOUND', `Collection "${collection}" not found`);
}

function requireActive(state: CollectionState, collection: string): void {
  if (state.lifecycle !== 'active') throw notFound(collection);
}

function refuseCreate(state: CollectionState, collection: string): void {
  if (state.lifecycle === 'active') throw new AppError('CONFLICT', `Collection "${collection}" already exists`, { path: ['body', 'name'] });
  if (state.lifecycle === 'deleted') {
    throw new AppError('CONFLICT', `"${collection}" was the name of a deleted collection; its history keeps the name reserved`, {
      path: ['body', 'name'],
    });
  }
}

export const collectionDecider: Decider<CollectionState, CollectionCommand, CollectionEvent> = {
  eventTypes: eventTypesOf(collectionEventSchemas),
  initialState: () => ({ lifecycle: 'absent', meta: DEFAULT_COLLECTION_META, fields: new Map(), removed: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'collection.created':
        return { lifecycle: 'active', meta: event.data.meta, fields: new Map(), removed: new Map() };
      case 'collection.updated':
        return { ...state, meta: event.data.meta };
      case 'collection.deleted':
        return { ...state, lifecycle: 'deleted' };
      case 'field.added':
      case 'field.updated': {
        const { field } = event.data;
        const fields = new Map(state.fields);
        fields.set(field.field, field);
        return { ...state, fields };
      }
      case 'field.removed': {
        const { field } = event.data;
        const fields = new Map(state.fields);
        const removed = new Map(state.removed);
        const last = fields.get(field);
        if (last) removed.set(field, last);
        fields.delete(field);
        return { ...state, fields, removed };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    const { collection } = command;
    switch (command.type) {
      case 'createCollection':
        refuseCreate(state, collection);
        command.fields.forEach((field, index) => checkFieldDefinition(field, ['body', 'fields', index]));
        return [
          { type: 'collection.created', data: { collection, meta: command.meta } },
          ...command.fields.map((field): CollectionEvent => ({ type: 'field.added', data: { collection, field: canonicalField(field) } })),
        ];
      case 'updateCollection': {
        requireActive(state, collection);
        const meta = toCollectionMeta(command.meta, state.meta);
        return sameJson(meta, state.meta) ? [] : [{ type: 'collection.updated', data: { collection, meta } }];
      }
      case 'deleteCollection':
        requireActive(state, collection);
        return [{ type: 'collection.deleted', data: { collection } }];
      case 'addField':
        requireActive(state, collection);
        if (state.fields.has(command.field.field)) {
          throw new AppError('CONFLICT', `Field "${command.field.field}" already exists on "${collection}"`, { path: ['body', 'field'] });
        }
        checkFieldDefinition(command.field, ['body']);
        refuseReshapedReturn(state, command.field, ['body']);
        return [{ type: 'field.added', data: { collection, field: canonicalField(command.field) } }];
      case 'updateField': {
        requireActive(state, collection);
        const current = state.fields.get(command.field);
        if (!current) throw new AppError('NOT_FOUND', `Field "${command.field}" of "${collection}" not found`);
        const next = canonicalField(patchContentField(current, command.patch));
        checkFieldDefinition(next, ['body']);
        return sameJson(next, canonicalField(current)) ? [] : [fieldUpdated(collection, current, next)];
      }
      case 'removeField':
        requireActive(state, collection);
        if (!state.fields.has(command.field)) throw new AppError('NOT_FOUND', `Field "${command.field}" of "${collection}" not found`);
        return [{ type: 'field.removed', data: { collection, field: command.field } }];
      case 'applySchema': {
        if (state.lifecycle === 'deleted') refuseCreate(state, collection);
        command.fields.forEach((field, index) => checkFieldDefinition(field, ['body', 'fields', index]));
        const diff = diffCollectionSchema(state, { meta: command.meta, fields: command.fields });
        command.fields.forEach((field, index) => {
          if (diff.fields.added.some((added) => added.field === field.field)) refuseReshapedReturn(state, field, ['body', 'fields', index]);
        });
        const events: CollectionEvent[] = [];
        if (diff.status === 'create') {
          events.push({ type: 'collection.created', data: { collection, meta: command.meta ? toCollectionMeta(command.meta) : DEFAULT_COLLECTION_META } });
        } else if (Object.keys(diff.meta).length > 0) {
          events.push({ type: 'collection.updated', data: { collection, meta: toCollectionMeta(command.meta ?? {}, state.meta) } });
        }
        for (const name of diff.fields.removed) events.push({ type: 'field.removed', data: { collection, field: name } });
        const desired = new Map(command.fields.map((field) => [field.field, canonicalField(field)]));
        for (const change of diff.fields.updated) events.push(fieldUpdated(collection, state.fields.get(change.field)!, desired.get(change.field)!));
        for (const field of diff.fields.added) events.push({ type: 'field.added', data: { collection, field } });
        return events;
      }
    }
  },
};
