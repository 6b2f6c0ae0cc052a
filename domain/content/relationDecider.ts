// A relation between collections: one stream per relation (<site>/relation/<id>). What it may link is
// checked against the whole site schema by checkRelationAgainstSchema, before the decider runs.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { RELATION_EVENT_TYPES, type RelationEvent, relationEventSchemas } from './events.ts';
import type { RelationPatchInput } from './schemaInput.ts';
import {
  aliasFieldsOf,
  collectionsOf,
  orderedRelation,
  REFERENCE_FIELD_TYPES,
  storedFieldsOf,
  type ContentField,
  type RelationDefinition,
} from './schemaModel.ts';

export { RELATION_EVENT_TYPES, type RelationEvent };

export type RelationCommand =
  | { type: 'createRelation'; relation: RelationDefinition }
  | { type: 'updateRelation'; relationId: string; patch: RelationPatchInput }
  /** Brings the relation to exactly this definition (schema apply); nothing when it already is. */
  | { type: 'replaceRelation'; relation: RelationDefinition }
  | { type: 'deleteRelation'; relationId: string };

export interface RelationState {
  lifecycle: 'absent' | 'active' | 'deleted';
  relation: RelationDefinition | null;
}

function notFound(relationId: string): AppError {
  return new AppError('NOT_FOUND', `Relation "${relationId}" not found`);
}

export function patchRelation(relation: RelationDefinition, patch: RelationPatchInput): RelationDefinition {
  const next = { ...relation };
  if (patch.onDelete !== undefined) next.onDelete = patch.onDelete;
  if (patch.relatedField !== undefined) {
    if (relation.kind === 'm2a') throw new AppError('VALIDATION_FAILED', 'An m2a relation has no relatedField', { path: ['body', 'relatedField'] });
    if (relation.kind === 'o2m' && patch.relatedField === null) {
      throw new AppError('VALIDATION_FAILED', 'An o2m relation needs its relatedField', { path: ['body', 'relatedField'] });
    }
    next.relatedField = patch.relatedField;
  }
  if (patch.allowedCollections !== undefined) {
    if (relation.kind !== 'm2a') {
      throw new AppError('VALIDATION_FAILED', `A ${relation.kind} relation has no allowedCollections`, { path: ['body', 'allowedCollections'] });
    }
    next.allowedCollections = patch.allowedCollections;
  }
  return next;
}

export const relationDecider: Decider<RelationState, RelationCommand, RelationEvent> = {
  eventTypes: eventTypesOf(relationEventSchemas),
  initialState: () => ({ lifecycle: 'absent', relation: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'relation.created':
      case 'relation.updated':
        return { lifecycle: 'active', relation: event.data.relation };
      case 'relation.deleted':
        return { lifecycle: 'deleted', relation: event.data.relation };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createRelation':
        if (state.lifecycle !== 'absent') throw new AppError('CONFLICT', `Relation "${command.relation.id}" exists or existed`, { path: ['body', 'id'] });
        return [{ type: 'relation.created', data: { relationId: command.relation.id, relation: command.relation } }];
      case 'updateRelation': {
        if (state.lifecycle !== 'active' || !state.relation) throw notFound(command.relationId);
        const relation = patchRelation(state.relation, command.patch);
        if (JSON.stringify(orderedRelation(relation)) === JSON.stringify(orderedRelation(state.relation))) return [];
        return [{ type: 'relation.updated', data: { relationId: command.relationId, relation } }];
      }
      case 'replaceRelation': {
        if (state.lifecycle === 'absent') return [{ type: 'relation.created', data: { relationId: command.relation.id, relation: command.relation } }];
        if (state.lifecycle !== 'active' || !state.relation) throw notFound(command.relation.id);
        if (JSON.stringify(orderedRelation(command.relation)) === JSON.stringify(orderedRelation(state.relation))) return [];
        return [{ type: 'relation.updated', data: { relationId: command.relation.id, relation: command.relation } }];
      }
      case 'deleteRelation':
        if (state.lifecycle !== 'active' || !state.relation) throw notFound(command.relationId);
        return [{ type: 'relation.deleted', data: { relationId: command.relationId, relation: state.relation } }];
    }
  },
};

/** What a relation is checked against: the live collections of the site with their fields, and the other relations. */
export interface SchemaView {
  fieldsOf(collection: string): ReadonlyMap<string, ContentField> | undefined;
  relations: readonly RelationDefinition[];
}

/**
 * A relation may only link live collections, through stored fields that exist with an id type, and
 * add alias fields whose names are free; no stored or alias field may serve two relations.
 * Errors point at the body key at fault (`['body', 'relatedCollection']`).
 */
export function checkRelationAgainstSchema(relation: RelationDefinition, schema: SchemaView): void {
  const fail = (message: string, key: string) => new AppError('VALIDATION_FAILED', message, { path: ['body', key] });
  const keyOfCollection = (name: string) =>
    name === relation.collection
      ? 'collection'
      : name === relation.relatedCollection
        ? 'relatedCollection'
        : name === relation.junctionCollection
          ? 'junctionCollection'
          : 'allowedCollections';
  for (const collection of collectionsOf(relation)) {
    if (!schema.fieldsOf(collection)) throw fail(`Collection "${collection}" not found`, keyOfCollection(collection));
  }
  const keyOfStored = (collection: string, field: string): string => {
    if (relation.kind === 'm2o') return 'field';
    if (relation.kind === 'o2m') return 'relatedField';
    if (field === relation.junctionField) return 'junctionField';
    if (field === relation.junctionRelatedField) return 'junctionRelatedField';
    if (field === relation.junctionItemField) return 'junctionItemField';
    return collection === relation.junctionCollection ? 'junctionCollectionField' : 'field';
  };
  for (const { collection, field } of storedFieldsOf(relation)) {
    const definition = schema.fieldsOf(collection)?.get(field);
    const key = keyOfStored(collection, field);
    if (!definition) throw fail(`Field "${field}" of "${collection}" not found: create it before the relation`, key);
    const wanted = key === 'junctionCollectionField' ? ['string'] : [...REFERENCE_FIELD_TYPES];
    if (!wanted.includes(definition.type)) throw fail(`Field "${collection}.${field}" must be of type ${wanted.join(' or ')} to hold ids`, key);
    if (definition.options.translatable === true) throw fail(`Field "${collection}.${field}" cannot be translatable`, key);
  }
  for (const { collection, field } of aliasFieldsOf(relation)) {
    const key = collection === relation.collection && field === relation.field ? 'field' : 'relatedField';
    if (schema.fieldsOf(collection)?.has(field) || field === 'status' || field === 'sort' || field === 'id') {
      throw fail(`"${collection}.${field}" is a stored field; an alias of a to-many relation needs a free name`, key);
    }
  }
  const others = schema.relations.filter((other) => other.id !== relation.id);
  const used = new Map<string, string>();
  for (const other of others) {
    for (const { collection, field } of [...storedFieldsOf(other), ...aliasFieldsOf(other)]) used.set(`${collection}.${field}`, other.id);
  }
  for (const { collection, field } of storedFieldsOf(relation)) {
    const owner = used.get(`${collection}.${field}`);
    if (owner) throw fail(`"${collection}.${field}" already belongs to relation "${owner}"`, keyOfStored(collection, field));
  }
  for (const { collection, field } of aliasFieldsOf(relation)) {
    const owner = used.get(`${collection}.${field}`);
    if (owner) throw fail(`"${collection}.${field}" already belongs to relation "${owner}"`, field === relation.field ? 'field' : 'relatedField');
  }
}
