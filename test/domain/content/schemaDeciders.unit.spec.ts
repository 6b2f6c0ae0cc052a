// Collection, field and relation rules as given events / when command / then events.
import { describe, expect, it } from 'vitest';
import { collectionDecider, type CollectionCommand, type CollectionEvent, type CollectionState } from '../../../domain/content/collectionDecider.ts';
import { checkRelationAgainstSchema, relationDecider } from '../../../domain/content/relationDecider.ts';
import { diffRelations, resolveBundleRelations } from '../../../domain/content/schemaDiff.ts';
import { collectionCreateInput, fieldInput, relationInput, toContentField, toRelationDefinition } from '../../../domain/content/schemaInput.ts';
import { referencesOf, type ContentField, type RelationDefinition } from '../../../domain/content/schemaModel.ts';
import { appErrorThrownBy } from '../../support/appErrors.ts';

const title = toContentField({ field: 'title', type: 'string' });
const views = toContentField({ field: 'views', type: 'integer', indexed: true });

function given(events: CollectionEvent[]): CollectionState {
  return events.reduce((state, event) => collectionDecider.evolve(state, event), collectionDecider.initialState());
}

function decide(command: CollectionCommand, events: CollectionEvent[] = []): CollectionEvent[] {
  return collectionDecider.decide(command, given(events));
}

const created = () => decide({ type: 'createCollection', collection: 'articles', meta: given([]).meta, fields: [title, views] });

describe('collection decider', () => {
  it('creates a collection with its fields as field.added events', () => {
    expect(created().map((event) => event.type)).toEqual(['collection.created', 'field.added', 'field.added']);
  });

  it('refuses a second collection of the same name, and the name of a deleted one', () => {
    expect(appErrorThrownBy(() => decide({ type: 'createCollection', collection: 'articles', meta: given([]).meta, fields: [] }, created())).code).toBe('CONFLICT');
    const deleted = [...created(), ...decide({ type: 'deleteCollection', collection: 'articles' }, created())];
    const error = appErrorThrownBy(() => decide({ type: 'createCollection', collection: 'articles', meta: given([]).meta, fields: [] }, deleted));
    expect([error.code, error.path]).toEqual(['CONFLICT', ['body', 'name']]);
  });

  it('answers 404 NOT_FOUND for a collection that does not exist', () => {
    const error = appErrorThrownBy(() => decide({ type: 'addField', collection: 'nope', field: title }));
    expect([error.code, error.status]).toEqual(['NOT_FOUND', 404]);
  });

  it('updates meta only when something changes', () => {
    expect(decide({ type: 'updateCollection', collection: 'articles', meta: { icon: 'article' } }, created())[0]?.type).toBe('collection.updated');
    const updated = [...created(), ...decide({ type: 'updateCollection', collection: 'articles', meta: { icon: 'article' } }, created())];
    expect(decide({ type: 'updateCollection', collection: 'articles', meta: { icon: 'article' } }, updated)).toEqual([]);
  });

  it('adds, updates and removes fields, refusing duplicates and unknown ones', () => {
    expect(appErrorThrownBy(() => decide({ type: 'addField', collection: 'articles', field: title }, created())).code).toBe('CONFLICT');
    expect(decide({ type: 'updateField', collection: 'articles', field: 'title', patch: { note: 'n' } }, created())[0]).toMatchObject({
      type: 'field.updated',
      data: { field: { field: 'title', note: 'n' } },
    });
    expect(decide({ type: 'updateField', collection: 'articles', field: 'title', patch: { required: false } }, created())).toEqual([]);
    expect(appErrorThrownBy(() => decide({ type: 'removeField', collection: 'articles', field: 'nope' }, created())).code).toBe('NOT_FOUND');
  });

  it('refuses indexed on types that can hold long values', () => {
    const body = toContentField({ field: 'body', type: 'text', indexed: true });
    const error = appErrorThrownBy(() => decide({ type: 'addField', collection: 'articles', field: body }, created()));
    expect([error.code, error.path]).toEqual(['VALIDATION_FAILED', ['body', 'indexed']]);
    expect(appErrorThrownBy(() => decide({ type: 'updateField', collection: 'articles', field: 'title', patch: { indexed: true, options: { maxLength: 5000 } } }, created())).path).toEqual([
      'body',
      'indexed',
    ]);
  });

  it('applies a whole schema as its differences, and nothing the second time', () => {
    const desired: ContentField[] = [{ ...title, note: 'headline' }, toContentField({ field: 'slug', type: 'slug' })];
    const events = decide({ type: 'applySchema', collection: 'articles', meta: { icon: 'news' }, fields: desired }, created());
    expect(events.map((event) => event.type)).toEqual(['collection.updated', 'field.removed', 'field.updated', 'field.added']);
    const after = [...created(), ...events];
    expect(decide({ type: 'applySchema', collection: 'articles', meta: { icon: 'news' }, fields: desired }, after)).toEqual([]);
    const fresh = decide({ type: 'applySchema', collection: 'pages', meta: null, fields: desired });
    expect(fresh.map((event) => event.type)).toEqual(['collection.created', 'field.added', 'field.added']);
  });
});

describe('schema input', () => {
  it('names the offending key of a field declaration', () => {
    const issues = (value: unknown) => fieldInput.safeParse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(issues({ field: 'a', type: 'nope' })).toEqual(['type']);
    expect(issues({ field: '1a', type: 'string' })).toEqual(['field']);
    expect(issues({ field: 'a', type: 'string', options: { maxLength: -1 } })).toEqual(['options.maxLength']);
    expect(issues({ field: 'a', type: 'string', options: { min: 1 } })).toEqual(['options.min']);
    expect(issues({ field: 'a', type: 'hash', options: { translatable: true } })).toEqual(['options.translatable']);
    expect(issues({ field: 'createdAt', type: 'string' })).toEqual(['field']);
    expect(issues({ field: 'status', type: 'integer' })).toEqual(['type']);
    expect(issues({ field: 'a', type: 'string', extra: 1 })).toEqual(['']);
    expect(collectionCreateInput.safeParse({ name: 'x', fields: [{ field: 'a', type: 'string' }, { field: 'a', type: 'text' }] }).error?.issues[0]?.path).toEqual([
      'fields',
      1,
      'field',
    ]);
  });

  it('checks what each relation kind needs', () => {
    const issues = (value: unknown) => relationInput.safeParse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(issues({ kind: 'm2o', collection: 'a', field: 'b' })).toEqual(['relatedCollection']);
    expect(issues({ kind: 'o2m', collection: 'a', field: 'b', relatedCollection: 'c' })).toEqual(['relatedField']);
    expect(issues({ kind: 'm2m', collection: 'a', field: 'b', relatedCollection: 'c', junctionCollection: 'j', junctionField: 'x', junctionRelatedField: 'x' })).toEqual([
      'junctionRelatedField',
    ]);
    expect(issues({ kind: 'm2a', collection: 'a', field: 'b', junctionCollection: 'j', junctionField: 'x', junctionItemField: 'y', junctionCollectionField: 'z' })).toEqual([
      'allowedCollections',
    ]);
    expect(issues({ kind: 'm2o', collection: 'a', field: 'b', relatedCollection: 'c', onDelete: 'nothing' })).toEqual(['onDelete']);
  });
});

describe('relations', () => {
  const fieldsOf = new Map<string, Map<string, ContentField>>([
    ['articles', new Map([['author', toContentField({ field: 'author', type: 'uuid' })], ['title', title], ['views', views]])],
    ['authors', new Map([['name', title]])],
    [
      'articles_tags',
      new Map([
        ['article', toContentField({ field: 'article', type: 'string' })],
        ['tag', toContentField({ field: 'tag', type: 'string' })],
        ['count', views],
      ]),
    ],
    ['tags', new Map()],
  ]);
  const view = (relations: RelationDefinition[] = []) => ({ fieldsOf: (name: string) => fieldsOf.get(name), relations });
  const m2o = toRelationDefinition(
    { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' },
    'r1',
  );

  it('accepts a relation over existing id fields and free alias names', () => {
    expect(() => checkRelationAgainstSchema(m2o, view())).not.toThrow();
  });

  it('refuses unknown collections, missing or non-id stored fields, taken alias names and fields of another relation', () => {
    const check = (relation: RelationDefinition, relations: RelationDefinition[] = []) => appErrorThrownBy(() => checkRelationAgainstSchema(relation, view(relations))).path;
    expect(check({ ...m2o, relatedCollection: 'nope' })).toEqual(['body', 'relatedCollection']);
    expect(check({ ...m2o, field: 'missing' })).toEqual(['body', 'field']);
    expect(check({ ...m2o, field: 'views', relatedField: null })).toEqual(['body', 'field']);
    expect(check({ ...m2o, relatedField: 'name' })).toEqual(['body', 'relatedField']);
    expect(check({ ...m2o, id: 'r2' }, [m2o])).toEqual(['body', 'field']);
    const m2m = toRelationDefinition(
      { kind: 'm2m', collection: 'articles', field: 'tags', relatedCollection: 'tags', junctionCollection: 'articles_tags', junctionField: 'article', junctionRelatedField: 'count' },
      'r3',
    );
    expect(check(m2m)).toEqual(['body', 'junctionRelatedField']);
  });

  it('lists where each kind stores ids, for the dependents check', () => {
    expect(referencesOf(m2o)).toEqual([{ relationId: 'r1', collection: 'articles', field: 'author', targetCollection: 'authors', collectionField: null, onDelete: 'restrict' }]);
    const m2a = toRelationDefinition(
      {
        kind: 'm2a',
        collection: 'pages',
        field: 'blocks',
        junctionCollection: 'pages_blocks',
        junctionField: 'page',
        junctionItemField: 'item',
        junctionCollectionField: 'collection',
        allowedCollections: ['headings', 'texts'],
      },
      'r4',
    );
    expect(referencesOf(m2a).map((reference) => [reference.collection, reference.field, reference.targetCollection, reference.collectionField])).toEqual([
      ['pages_blocks', 'page', 'pages', null],
      ['pages_blocks', 'item', 'headings', 'collection'],
      ['pages_blocks', 'item', 'texts', 'collection'],
    ]);
  });

  it('relation decider: create once, update only on change, delete', () => {
    const [createdEvent] = relationDecider.decide({ type: 'createRelation', relation: m2o }, relationDecider.initialState());
    const state = relationDecider.evolve(relationDecider.initialState(), createdEvent!);
    expect(appErrorThrownBy(() => relationDecider.decide({ type: 'createRelation', relation: m2o }, state)).code).toBe('CONFLICT');
    expect(relationDecider.decide({ type: 'updateRelation', relationId: 'r1', patch: { onDelete: 'restrict' } }, state)).toEqual([]);
    expect(relationDecider.decide({ type: 'updateRelation', relationId: 'r1', patch: { onDelete: 'cascade' } }, state)[0]?.data.relation.onDelete).toBe('cascade');
    expect(relationDecider.decide({ type: 'replaceRelation', relation: { ...m2o } }, state)).toEqual([]);
    expect(relationDecider.decide({ type: 'deleteRelation', relationId: 'r1' }, state)[0]?.type).toBe('relation.deleted');
  });

  it('a bundle reuses the ids of relations on the same field, so the diff of an unchanged bundle is empty', () => {
    const input = { kind: 'm2o' as const, collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' as const };
    const resolved = resolveBundleRelations([input], [m2o], () => 'new-id');
    expect(resolved[0]?.id).toBe('r1');
    expect(diffRelations([m2o], resolved)).toEqual({ added: [], updated: [], removed: [] });
    expect(diffRelations([m2o], [])).toEqual({ added: [], updated: [], removed: ['r1'] });
    expect(diffRelations([m2o], [{ ...m2o, onDelete: 'cascade' }]).updated).toEqual([{ id: 'r1', changes: { onDelete: { from: 'restrict', to: 'cascade' } } }]);
  });
});
