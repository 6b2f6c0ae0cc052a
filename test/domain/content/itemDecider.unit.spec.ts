// Item rules as given events / when command / then events, and how item bodies are read.
import { describe, expect, it } from 'vitest';
import { checkItemInput, type ItemInputContext } from '../../../domain/content/itemInput.ts';
import { initialItemState, itemDecider, type ItemChanges, type ItemCommand, type ItemEvent, type ItemState } from '../../../domain/content/itemDecider.ts';
import type { ContentField, FieldType } from '../../../domain/content/schemaModel.ts';
import { appErrorThrownBy } from '../../support/appErrors.ts';

const NOW = '2024-06-01T10:00:00.000Z';
const LATER = '2024-06-02T10:00:00.000Z';

function field(name: string, type: FieldType, extra: Partial<ContentField> = {}): ContentField {
  return { field: name, type, interface: null, display: null, options: {}, required: false, sort: null, sensitivity: null, indexed: false, note: null, ...extra };
}

const fields = new Map<string, ContentField>([
  ['title', field('title', 'string', { required: true })],
  ['views', field('views', 'integer')],
  ['secret', field('secret', 'hash')],
  ['summary', field('summary', 'text', { options: { translatable: true } })],
]);

function changes(values: Record<string, unknown>, extra: Partial<ItemChanges> = {}): ItemChanges {
  return { values, keepHashes: [], translations: {}, ...extra };
}

function given(events: ItemEvent[]): ItemState {
  return events.reduce((state, event) => itemDecider.evolve(state, event), initialItemState());
}

const acting = { collection: 'articles', itemId: 'a1', actorId: 'u1', now: NOW };

function created(values: Record<string, unknown> = { title: 'Hello', views: 1 }): ItemEvent[] {
  return itemDecider.decide({ type: 'createItem', ...acting, changes: changes(values), required: ['title'] }, initialItemState());
}

function update(values: Record<string, unknown>, extra: Partial<Extract<ItemCommand, { type: 'updateItem' }>> = {}): ItemCommand {
  return {
    type: 'updateItem',
    ...acting,
    now: LATER,
    actorId: 'u2',
    changes: changes(values),
    mode: 'patch',
    target: 'main',
    required: ['title'],
    fields: [...fields.keys()],
    eventType: 'item.updated',
    ...extra,
  };
}

describe('item decider', () => {
  it('creates an item with a whole snapshot and a delta of what was set', () => {
    const [event] = created();
    expect(event!.type).toBe('item.created');
    expect(event!.data.snapshot).toEqual({
      id: 'a1',
      status: null,
      sort: null,
      createdAt: NOW,
      updatedAt: NOW,
      userCreated: 'u1',
      userUpdated: 'u1',
      deletedAt: null,
      title: 'Hello',
      views: 1,
    });
    expect(event!.data.delta).toEqual({ title: 'Hello', views: 1 });
  });

  it('refuses to create an item whose id exists or existed (409 CONFLICT at body.id)', () => {
    const error = appErrorThrownBy(() => itemDecider.decide({ type: 'createItem', ...acting, changes: changes({ title: 'x' }), required: [] }, given(created())));
    expect([error.code, error.status, error.path]).toEqual(['CONFLICT', 409, ['body', 'id']]);
  });

  it('PATCH merges, keeps createdAt, and reports only what changed', () => {
    const [event] = itemDecider.decide(update({ views: 2 }), given(created()));
    expect(event!.data.snapshot).toMatchObject({ title: 'Hello', views: 2, createdAt: NOW, updatedAt: LATER, userCreated: 'u1', userUpdated: 'u2' });
    expect(event!.data.delta).toEqual({ views: 2 });
  });

  it('a PATCH that changes nothing appends nothing', () => {
    expect(itemDecider.decide(update({ views: 1 }), given(created()))).toEqual([]);
  });

  it('PUT replaces: fields it does not name are removed', () => {
    const [event] = itemDecider.decide(update({ title: 'New' }, { mode: 'replace' }), given(created()));
    expect(event!.data.snapshot).not.toHaveProperty('views');
    expect(event!.data.delta).toEqual({ title: 'New', views: null });
  });

  it('PUT keeps a hash sent back as the mask', () => {
    const state = given(created({ title: 'T', secret: '$argon2id$stored' }));
    const [event] = itemDecider.decide({ ...update({ title: 'T2' }, { mode: 'replace' }), changes: changes({ title: 'T2' }, { keepHashes: ['secret'] }) } as ItemCommand, state);
    expect(event!.data.snapshot.secret).toBe('$argon2id$stored');
  });

  it('refuses a required field set to null, with the field path', () => {
    const error = appErrorThrownBy(() => itemDecider.decide(update({ title: null }), given(created())));
    expect([error.code, error.path]).toEqual(['VALIDATION_FAILED', ['body', 'title']]);
  });

  it('merges translations into the stored map', () => {
    const state = given(created({ title: 'T', summary: { en: 'Hi' } }));
    const [event] = itemDecider.decide({ ...update({}), changes: changes({}, { translations: { summary: { fr: 'Salut' } } }) } as ItemCommand, state);
    expect(event!.data.snapshot.summary).toEqual({ en: 'Hi', fr: 'Salut' });
  });

  it('a draft write changes the draft, not the item, and is marked cause.draft', () => {
    const [event] = itemDecider.decide(update({ title: 'Draft title' }, { target: 'draft' }), given(created()));
    expect(event!.type).toBe('item.updated');
    expect(event!.data.cause).toEqual({ draft: true });
    expect(event!.data.snapshot.title).toBe('Hello');
    expect(event!.data.draft).toMatchObject({ title: 'Draft title', views: 1 });
    const state = given([...created(), event!]);
    expect(state.draft).toMatchObject({ title: 'Draft title' });
    // a later normal write carries the draft along, so the last event alone gives the whole state
    const [next] = itemDecider.decide(update({ views: 5 }), state);
    expect(next!.data.draft).toMatchObject({ title: 'Draft title' });
    expect(itemDecider.evolve(initialItemState(), next!)).toEqual(given([...created(), event!, next!]));
  });

  it('soft-deletes, then refuses changes with 404 RECORD_NOT_FOUND; restore brings it back', () => {
    const [deleted] = itemDecider.decide({ type: 'deleteItem', ...acting, now: LATER }, given(created()));
    expect(deleted!.data.delta).toEqual({ deletedAt: LATER });
    const state = given([...created(), deleted!]);
    expect(state.lifecycle).toBe('deleted');
    expect(appErrorThrownBy(() => itemDecider.decide(update({ views: 3 }), state)).code).toBe('RECORD_NOT_FOUND');
    expect(appErrorThrownBy(() => itemDecider.decide({ type: 'deleteItem', ...acting }, state)).code).toBe('RECORD_NOT_FOUND');
    const [restored] = itemDecider.decide({ type: 'restoreItem', ...acting, now: LATER }, state);
    expect(restored!.type).toBe('item.restored');
    expect(given([...created(), deleted!, restored!]).snapshot?.deletedAt).toBeNull();
  });

  it('a write with restore brings a deleted item back first: item.restored, then the change', () => {
    const [deleted] = itemDecider.decide({ type: 'deleteItem', ...acting, now: LATER }, given(created()));
    const state = given([...created(), deleted!]);
    const revert = update({ views: 7 }, { eventType: 'item.reverted', cause: { revisionId: 'r1' }, restore: true });
    const events = itemDecider.decide(revert, state);
    expect(events.map((event) => [event.type, event.data.delta])).toEqual([
      ['item.restored', { deletedAt: null }],
      ['item.reverted', { views: 7 }],
    ]);
    expect(given([...created(), deleted!, ...events])).toMatchObject({ lifecycle: 'live', snapshot: { deletedAt: null, views: 7 } });
    // On a live item restore changes nothing; a purged item stays gone.
    expect(itemDecider.decide(revert, given(created())).map((event) => event.type)).toEqual(['item.reverted']);
    const [hard] = itemDecider.decide({ type: 'hardDeleteItem', ...acting }, given(created()));
    expect(appErrorThrownBy(() => itemDecider.decide(revert, given([...created(), hard!]))).code).toBe('RECORD_NOT_FOUND');
  });

  it('hard-deletes a live or deleted item; afterwards nothing is possible', () => {
    const [hard] = itemDecider.decide({ type: 'hardDeleteItem', ...acting }, given(created()));
    expect(hard!.type).toBe('item.hard_deleted');
    const state = given([...created(), hard!]);
    expect(state.lifecycle).toBe('purged');
    expect(appErrorThrownBy(() => itemDecider.decide({ type: 'restoreItem', ...acting }, state)).code).toBe('RECORD_NOT_FOUND');
  });

  it('revert and promote always append, with their cause', () => {
    const [event] = itemDecider.decide(update({ views: 1 }, { eventType: 'item.reverted', cause: { revisionId: 'r1' } }), given(created()));
    expect(event!.type).toBe('item.reverted');
    expect(event!.data.cause).toEqual({ revisionId: 'r1' });
  });
});

describe('item input', () => {
  const context = (extra: Partial<ItemInputContext> = {}): ItemInputContext => ({
    fields,
    aliasFields: new Set(['comments']),
    mode: 'create',
    locale: null,
    defaultLanguage: 'en',
    ...extra,
  });

  it('checks each field and ignores read-only structural keys', () => {
    const checked = checkItemInput({ title: 'T', views: 3, createdAt: 'x', userCreated: 'y', status: 'draft', sort: 4 }, context(), ['body']);
    expect(checked.values).toEqual({ title: 'T', views: 3, status: 'draft', sort: 4 });
  });

  it('refuses unknown fields, alias fields and bad values at body.<field> (bulk: body.<index>.<field>)', () => {
    expect(appErrorThrownBy(() => checkItemInput({ title: 'T', nope: 1 }, context(), ['body'])).path).toEqual(['body', 'nope']);
    expect(appErrorThrownBy(() => checkItemInput({ title: 'T', comments: [] }, context(), ['body'])).path).toEqual(['body', 'comments']);
    expect(appErrorThrownBy(() => checkItemInput({ title: 'T', views: 'many' }, context(), ['body', 3])).path).toEqual(['body', 3, 'views']);
    expect(appErrorThrownBy(() => checkItemInput({ title: 'T', sort: 1.5 }, context(), ['body'])).path).toEqual(['body', 'sort']);
    expect(appErrorThrownBy(() => checkItemInput([], context(), ['body', 0])).path).toEqual(['body', 0]);
  });

  it('refuses a missing required field on create and PUT, and null on PATCH', () => {
    expect(appErrorThrownBy(() => checkItemInput({ views: 1 }, context(), ['body'])).path).toEqual(['body', 'title']);
    expect(appErrorThrownBy(() => checkItemInput({ views: 1 }, context({ mode: 'replace', itemId: 'a1' }), ['body'])).path).toEqual(['body', 'title']);
    expect(appErrorThrownBy(() => checkItemInput({ title: null }, context({ mode: 'patch', itemId: 'a1' }), ['body'])).path).toEqual(['body', 'title']);
    expect(checkItemInput({ views: 2 }, context({ mode: 'patch', itemId: 'a1' }), ['body']).values).toEqual({ views: 2 });
  });

  it('takes a client id on create only; on update it must match', () => {
    expect(checkItemInput({ id: 'my-id', title: 'T' }, context(), ['body']).id).toBe('my-id');
    expect(appErrorThrownBy(() => checkItemInput({ id: 'bad id!', title: 'T' }, context(), ['body'])).path).toEqual(['body', 'id']);
    expect(appErrorThrownBy(() => checkItemInput({ id: 'other' }, context({ mode: 'patch', itemId: 'a1' }), ['body'])).path).toEqual(['body', 'id']);
    expect(checkItemInput({ id: 'a1' }, context({ mode: 'patch', itemId: 'a1' }), ['body']).id).toBeNull();
  });

  it('sets hashes apart and keeps the mask', () => {
    const checked = checkItemInput({ title: 'T', secret: 'pw' }, context(), ['body']);
    expect(checked.hashes).toEqual({ secret: 'pw' });
    expect(checked.values).not.toHaveProperty('secret');
    expect(checkItemInput({ secret: '**********' }, context({ mode: 'patch', itemId: 'a1' }), ['body']).keepHashes).toEqual(['secret']);
  });

  it('translatable fields: a locale sets that language; without one a plain value is the default language and a map sets several', () => {
    expect(checkItemInput({ title: 'T', summary: 'Salut' }, context({ locale: 'fr' }), ['body']).translations).toEqual({ summary: { fr: 'Salut' } });
    expect(checkItemInput({ title: 'T', summary: 'Hi' }, context(), ['body']).translations).toEqual({ summary: { en: 'Hi' } });
    expect(checkItemInput({ title: 'T', summary: { en: 'Hi', 'pt-BR': 'Oi' } }, context(), ['body']).translations).toEqual({ summary: { en: 'Hi', 'pt-BR': 'Oi' } });
    expect(appErrorThrownBy(() => checkItemInput({ title: 'T', summary: { en: 5 } }, context(), ['body'])).path).toEqual(['body', 'summary', 'en']);
  });
});

describe('item decider after a type change of the collection', () => {
  const toInteger = [{ field: 'views', to: 'integer' as const, maxLength: null }];

  it('decides on the item converted by the conversions: the new snapshot holds what the read models hold, the delta only the change', () => {
    const state = given(created({ title: 'Hello', views: '12' }));
    const [event] = itemDecider.decide({ ...update({ title: 'Renamed' }), conversions: toInteger }, state);
    expect(event!.data.snapshot).toMatchObject({ title: 'Renamed', views: 12 });
    expect(event!.data.delta).toEqual({ title: 'Renamed' });
  });

  it('converts in order, nulls what does not parse, and converts the draft and a delete too', () => {
    const state = given([
      ...created({ title: 'Hello', views: '12.5' }),
      ...itemDecider.decide(update({ title: 'Draft' }, { target: 'draft' }), given(created({ title: 'Hello', views: '12.5' }))),
    ]);
    const [deleted] = itemDecider.decide({ type: 'deleteItem', ...acting, conversions: [{ field: 'views', to: 'float', maxLength: null }, ...toInteger] }, state);
    expect(deleted!.data.snapshot.views).toBeNull();
    expect(deleted!.data.draft).toMatchObject({ title: 'Draft', views: null });
    // Float first: "12.5" → 12.5, then integer: 12.5 is no integer.
    const [kept] = itemDecider.decide({ type: 'deleteItem', ...acting, conversions: [{ field: 'views', to: 'float', maxLength: null }] }, state);
    expect(kept!.data.snapshot.views).toBe(12.5);
  });

  it('writes nothing for a change that changes nothing, even when the item as loaded would convert', () => {
    const state = given(created({ title: 'Hello', views: '12' }));
    expect(itemDecider.decide({ ...update({ title: 'Hello' }), conversions: toInteger }, state)).toEqual([]);
  });
});
