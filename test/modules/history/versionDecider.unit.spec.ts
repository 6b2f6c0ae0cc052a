import { describe, expect, it } from 'vitest';
import type { VersionEvent } from '../../../domain/content/versions/events.ts';
import { versionChanges, versionDecider, type VersionCommand, type VersionState } from '../../../domain/content/versions/versionDecider.ts';

function given(events: VersionEvent[]): VersionState {
  return events.reduce((state, event) => versionDecider.evolve(state, event), versionDecider.initialState());
}

function when(events: VersionEvent[], command: VersionCommand): VersionEvent[] {
  return versionDecider.decide(command, given(events));
}

const created: VersionEvent = {
  type: 'version.created',
  data: { collection: 'articles', itemId: 'a1', key: 'draft', name: 'Draft', data: { title: 'Hello', body: 'x' }, baseVersion: 3 },
};

describe('named version decider', () => {
  it('creates a version from main content and base version', () => {
    const events = when([], { type: 'createVersion', collection: 'articles', itemId: 'a1', key: 'draft', name: 'Draft', data: { title: 'Hello' }, baseVersion: 3 });
    expect(events).toEqual([
      { type: 'version.created', data: { collection: 'articles', itemId: 'a1', key: 'draft', name: 'Draft', data: { title: 'Hello' }, baseVersion: 3 } },
    ]);
  });

  it('refuses a second version with the same key while the first is live', () => {
    expect(() => when([created], { type: 'createVersion', collection: 'articles', itemId: 'a1', key: 'draft', name: 'Again', data: {}, baseVersion: 4 })).toThrow(
      expect.objectContaining({ code: 'CONFLICT', status: 409, path: ['body', 'key'] }),
    );
  });

  it('allows a deleted key to be used again', () => {
    const deleted: VersionEvent = { type: 'version.deleted', data: { collection: 'articles', itemId: 'a1', key: 'draft' } };
    const events = when([created, deleted], { type: 'createVersion', collection: 'articles', itemId: 'a1', key: 'draft', name: 'New', data: {}, baseVersion: 5 });
    expect(events[0]?.type).toBe('version.created');
  });

  it('merges data changes into the version and records the whole data', () => {
    const events = when([created], { type: 'updateVersion', changes: { title: 'Changed' } });
    expect(events).toEqual([
      {
        type: 'version.updated',
        data: { collection: 'articles', itemId: 'a1', key: 'draft', data: { title: 'Changed', body: 'x' }, changes: { title: 'Changed' } },
      },
    ]);
  });

  it('writes nothing when an update changes nothing', () => {
    expect(when([created], { type: 'updateVersion', name: 'Draft', changes: { title: 'Hello' } })).toEqual([]);
  });

  it('refuses to edit, delete or promote a version that does not exist', () => {
    for (const command of [
      { type: 'updateVersion', name: 'x' },
      { type: 'deleteVersion' },
      { type: 'recordPromotion', mainVersion: 2, mainData: {}, revisionId: null, mainDiverged: false },
    ] as VersionCommand[]) {
      expect(() => when([], command)).toThrow(expect.objectContaining({ code: 'NOT_FOUND', status: 404 }));
    }
  });

  it('rebases the version on main after a promotion, so it no longer differs', () => {
    const updated: VersionEvent = {
      type: 'version.updated',
      data: { collection: 'articles', itemId: 'a1', key: 'draft', data: { title: 'Changed', body: 'x' }, changes: { title: 'Changed' } },
    };
    expect(versionChanges(given([created, updated]))).toEqual({ title: 'Changed' });
    const [promoted] = when([created, updated], {
      type: 'recordPromotion',
      mainVersion: 5,
      mainData: { title: 'Changed', body: 'main edit' },
      revisionId: 'r',
      mainDiverged: true,
    });
    const state = given([created, updated, promoted!]);
    expect(state.baseVersion).toBe(5);
    expect(versionChanges(state)).toEqual({});
  });

  it('promotes only the languages a version changed in a translatable field', () => {
    const state = { baseData: { summary: { en: 'Hi', fr: 'Salut' }, tags: { a: 1 } }, data: { summary: { en: 'Hi', fr: 'Bonjour', de: 'Hallo' }, tags: { a: 2 } } };
    expect(versionChanges(state, new Set(['summary']))).toEqual({ summary: { fr: 'Bonjour', de: 'Hallo' }, tags: { a: 2 } });
    expect(versionChanges(state)).toEqual(state.data);
  });
});
