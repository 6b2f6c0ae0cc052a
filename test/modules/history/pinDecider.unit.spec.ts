import { describe, expect, it } from 'vitest';
import type { PinEvent } from '../../../domain/content/versions/events.ts';
import { pinDecider, type PinCommand, type PinState } from '../../../domain/content/versions/pinDecider.ts';

function given(events: PinEvent[]): PinState {
  return events.reduce((state, event) => pinDecider.evolve(state, event), pinDecider.initialState());
}

const revision = { revisionId: 'r1', collection: 'authors', itemId: 'au1', staged: false };
const pinAuthor: PinCommand = { type: 'pin', collection: 'articles', itemId: 'a1', field: 'author', revision };
const pinned: PinEvent = {
  type: 'pin.created',
  data: { collection: 'articles', itemId: 'a1', field: 'author', revisionId: 'r1', targetCollection: 'authors', targetItemId: 'au1' },
};

describe('pin decider', () => {
  it('pins a field to a committed revision', () => {
    expect(pinDecider.decide(pinAuthor, given([]))).toEqual([pinned]);
  });

  it('refuses a staged revision with REVISION_STAGED', () => {
    const staged: PinCommand = { ...pinAuthor, revision: { ...revision, staged: true } } as PinCommand;
    expect(() => pinDecider.decide(staged, given([]))).toThrow(expect.objectContaining({ code: 'REVISION_STAGED', status: 409 }));
  });

  it('writes nothing when the field is already pinned to that revision', () => {
    expect(pinDecider.decide(pinAuthor, given([pinned]))).toEqual([]);
  });

  it('releases one pin, and 404s on a field that is not pinned', () => {
    expect(pinDecider.decide({ type: 'release', collection: 'articles', itemId: 'a1', field: 'author' }, given([pinned]))).toEqual([
      { type: 'pin.released', data: { collection: 'articles', itemId: 'a1', field: 'author' } },
    ]);
    expect(() => pinDecider.decide({ type: 'release', collection: 'articles', itemId: 'a1', field: 'editor' }, given([pinned]))).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', status: 404 }),
    );
  });

  it('releases every pin when no field is named', () => {
    const second: PinEvent = { ...pinned, data: { ...pinned.data, field: '*', targetCollection: 'articles', targetItemId: 'a1' } } as PinEvent;
    const events = pinDecider.decide({ type: 'release', collection: 'articles', itemId: 'a1', field: null }, given([pinned, second]));
    expect(events.map((event) => event.data.field)).toEqual(['*', 'author']);
    expect(given([pinned, second, ...events]).pins).toEqual({});
  });
});
