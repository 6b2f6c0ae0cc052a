// The release decider, given events / when command / then events: the draft/scheduled state
// machine, item edits, and what a published release refuses.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { releaseDecider, type ReleaseEvent, type ReleaseState } from '../../../domain/releases/release.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(releaseDecider);
const releaseId = '0190d6a0-0000-7000-8000-000000000001';
const revisionId = '0190d6a0-0000-7000-8000-0000000000aa';
const now = '2030-01-01T10:00:00.000Z';
const later = '2030-01-02T10:00:00.000Z';
const earlier = '2029-12-31T10:00:00.000Z';
const a1 = { collection: 'articles', itemId: 'a1', targetStatus: 'published', revisionId: null };
const a2 = { collection: 'articles', itemId: 'a2', targetStatus: 'archived', revisionId };
const meta = { name: 'Launch', atomicityMode: 'all_or_nothing' as const, maintenanceWindow: null };
const created: ReleaseEvent = { type: 'release.created', data: { releaseId, ...meta, publishAt: null, status: 'draft', items: [a1] } };
const scheduled: ReleaseEvent = { type: 'release.created', data: { releaseId, ...meta, publishAt: later, status: 'scheduled', items: [a1] } };

function stateWithStatus(status: ReleaseState['status']): ReleaseState {
  return { ...spec.given([created]).state, status };
}

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
  return undefined;
}

describe('release decider', () => {
  it('creates a draft without publishAt and a scheduled release with one', () => {
    spec.given([]).when({ type: 'createRelease', releaseId, ...meta, publishAt: null, items: [a1], now }).then([created]);
    spec.given([]).when({ type: 'createRelease', releaseId, ...meta, publishAt: later, items: [a1], now }).then([scheduled]);
    spec.given([created]).when({ type: 'createRelease', releaseId, ...meta, publishAt: null, items: [], now }).thenThrows('CONFLICT', 409);
  });

  it('refuses a publishAt in the past on create and on update, and an item listed twice', () => {
    spec.given([]).when({ type: 'createRelease', releaseId, ...meta, publishAt: earlier, items: [], now }).thenThrows('VALIDATION_FAILED', 422, ['body', 'publishAt']);
    spec.given([created]).when({ type: 'updateRelease', changes: { publishAt: earlier }, now }).thenThrows('VALIDATION_FAILED', 422, ['body', 'publishAt']);
    spec
      .given([])
      .when({ type: 'createRelease', releaseId, ...meta, publishAt: null, items: [a1, a2, { ...a1, targetStatus: 'draft' }], now })
      .thenThrows('VALIDATION_FAILED', 422, ['body', 'addItems', 2]);
  });

  it('moves between draft and scheduled as publishAt is set and cleared', () => {
    spec
      .given([created])
      .when({ type: 'updateRelease', changes: { publishAt: later }, now })
      .then([{ type: 'release.updated', data: { releaseId, changes: { publishAt: later, status: 'scheduled' } } }]);
    spec
      .given([scheduled])
      .when({ type: 'updateRelease', changes: { publishAt: null }, now })
      .then([{ type: 'release.updated', data: { releaseId, changes: { publishAt: null, status: 'draft' } } }]);
    const moved = spec.given([created, { type: 'release.updated', data: { releaseId, changes: { publishAt: later, status: 'scheduled' } } }]).state;
    expect(moved).toMatchObject({ status: 'scheduled', publishAt: later });
  });

  it('records only what a patch changes, and nothing for a patch that changes nothing', () => {
    spec
      .given([created])
      .when({ type: 'updateRelease', changes: { name: 'Launch', atomicityMode: 'best_effort', maintenanceWindow: { windows: [{ dow: 0, start: '01:00', end: '02:00' }] } }, now })
      .then([{ type: 'release.updated', data: { releaseId, changes: { atomicityMode: 'best_effort', maintenanceWindow: { windows: [{ dow: 0, start: '01:00', end: '02:00' }] } } } }]);
    spec.given([created]).when({ type: 'updateRelease', changes: { name: 'Launch' }, addItems: [a1], now }).thenNothing();
  });

  it('adds, replaces and removes items, removals first', () => {
    spec
      .given([created])
      .when({ type: 'updateRelease', changes: {}, addItems: [a2, { ...a1, targetStatus: 'archived' }], now })
      .then([{ type: 'release.items_added', data: { releaseId, items: [a2, { ...a1, targetStatus: 'archived' }] } }]);
    spec
      .given([created])
      .when({ type: 'updateRelease', changes: {}, removeItems: [{ collection: 'articles', itemId: 'a1' }], addItems: [a1], now })
      .then([
        { type: 'release.items_removed', data: { releaseId, items: [{ collection: 'articles', itemId: 'a1' }] } },
        { type: 'release.items_added', data: { releaseId, items: [a1] } },
      ]);
    const after = spec.given([created, { type: 'release.items_added', data: { releaseId, items: [a2] } }, { type: 'release.items_removed', data: { releaseId, items: [a1] } }]).state;
    expect(Object.values(after.items)).toEqual([a2]);
  });

  it('refuses to remove an item the release does not hold (404 ITEM_NOT_FOUND at its index)', () => {
    spec
      .given([created])
      .when({ type: 'updateRelease', changes: {}, removeItems: [{ collection: 'articles', itemId: 'a1' }, { collection: 'articles', itemId: 'zz' }], now })
      .thenThrows('ITEM_NOT_FOUND', 404, ['body', 'removeItems', 1]);
  });

  it('refuses to change, or delete, a release that does not exist or was deleted', () => {
    const deleted = { type: 'release.deleted' as const, data: { releaseId } };
    spec.given([]).when({ type: 'updateRelease', changes: { name: 'X' }, now }).thenThrows('NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'updateRelease', changes: { name: 'X' }, now }).thenThrows('NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'deleteRelease' }).thenThrows('NOT_FOUND', 404);
    spec.given([scheduled]).when({ type: 'deleteRelease' }).then([deleted]);
  });

  it('keeps a published release as it is: no edit of items or meta (409 RELEASE_IMMUTABLE), no delete', () => {
    const published = stateWithStatus('published');
    expect(codeOf(() => releaseDecider.decide({ type: 'updateRelease', changes: {}, addItems: [a2], now }, published))).toBe('RELEASE_IMMUTABLE');
    expect(codeOf(() => releaseDecider.decide({ type: 'updateRelease', changes: {}, removeItems: [a1], now }, published))).toBe('RELEASE_IMMUTABLE');
    expect(codeOf(() => releaseDecider.decide({ type: 'updateRelease', changes: { name: 'Renamed' }, now }, published))).toBe('RELEASE_IMMUTABLE');
    expect(codeOf(() => releaseDecider.decide({ type: 'deleteRelease' }, published))).toBe('RELEASE_IMMUTABLE');
    expect(codeOf(() => releaseDecider.decide({ type: 'deleteRelease' }, stateWithStatus('partially_failed')))).toBe('RELEASE_IMMUTABLE');
  });

  it('lets a failed release be edited (its status stays) and deleted, since it published nothing', () => {
    const failed = stateWithStatus('failed');
    expect(releaseDecider.decide({ type: 'updateRelease', changes: { publishAt: later }, addItems: [a2], now }, failed)).toEqual([
      { type: 'release.updated', data: { releaseId, changes: { publishAt: later } } },
      { type: 'release.items_added', data: { releaseId, items: [a2] } },
    ]);
    expect(releaseDecider.decide({ type: 'deleteRelease' }, failed)).toEqual([{ type: 'release.deleted', data: { releaseId } }]);
  });

  describe('publish and revert', () => {
    const ok = (itemId: string, fromVersion: number, toVersion: number) => ({ collection: 'articles', itemId, outcome: 'published' as const, fromVersion, toVersion });
    const blocked = { collection: 'articles', itemId: 'a2', outcome: 'failed' as const, reason: 'ITEM_DELETED' as const };
    const publishedEvent = (status: 'published' | 'partially_failed' | 'failed', outcomes: unknown[]): ReleaseEvent =>
      ({ type: 'release.published', data: { releaseId, status, atomicityMode: 'all_or_nothing', trigger: 'manual', outcomes } }) as ReleaseEvent;

    it('records the outcomes with the status they add up to', () => {
      spec.given([created]).when({ type: 'publishRelease', outcomes: [ok('a1', 1, 2)], trigger: 'manual' }).then([publishedEvent('published', [ok('a1', 1, 2)])]);
      spec.given([created]).when({ type: 'publishRelease', outcomes: [ok('a1', 1, 2), blocked], trigger: 'manual' }).then([publishedEvent('partially_failed', [ok('a1', 1, 2), blocked])]);
      const skipped = { collection: 'articles', itemId: 'a1', outcome: 'skipped' as const };
      spec.given([created]).when({ type: 'publishRelease', outcomes: [skipped, blocked], trigger: 'manual' }).then([publishedEvent('failed', [skipped, blocked])]);
    });

    it('refuses to publish a published release (409), an empty one (422) and one that does not exist (404)', () => {
      spec.given([created, publishedEvent('published', [ok('a1', 1, 2)])]).when({ type: 'publishRelease', outcomes: [], trigger: 'manual' }).thenThrows('ALREADY_PUBLISHED', 409);
      const emptied: ReleaseEvent = { type: 'release.items_removed', data: { releaseId, items: [{ collection: 'articles', itemId: 'a1' }] } };
      spec.given([created, emptied]).when({ type: 'publishRelease', outcomes: [], trigger: 'manual' }).thenThrows('EMPTY_RELEASE', 422);
      spec.given([]).when({ type: 'publishRelease', outcomes: [], trigger: 'manual' }).thenThrows('NOT_FOUND', 404);
    });

    it('publishes a failed or partially_failed release again, keeping the version each item was first moved from', () => {
      const first = publishedEvent('partially_failed', [ok('a1', 1, 2), blocked]);
      const second = publishedEvent('published', [ok('a1', 2, 2), ok('a2', 4, 5)]);
      spec.given([created, first]).when({ type: 'publishRelease', outcomes: [ok('a1', 2, 2), ok('a2', 4, 5)], trigger: 'scheduler' }).then([
        { type: 'release.published', data: { releaseId, status: 'published', atomicityMode: 'all_or_nothing', trigger: 'scheduler', outcomes: [ok('a1', 2, 2), ok('a2', 4, 5)] } },
      ]);
      expect(spec.given([created, first, second]).state.published).toEqual({ 'articles/a1': { fromVersion: 1, toVersion: 2 }, 'articles/a2': { fromVersion: 4, toVersion: 5 } });
    });

    it('reverts once, and only a release that published something', () => {
      const items = [{ collection: 'articles', itemId: 'a1', fromVersion: 2, toVersion: 3, restoredVersion: 1 }];
      const reverted: ReleaseEvent = { type: 'release.reverted', data: { releaseId, forced: false, items } };
      spec.given([created, publishedEvent('published', [ok('a1', 1, 2)])]).when({ type: 'revertRelease', items, forced: false }).then([reverted]);
      spec.given([created, publishedEvent('published', [ok('a1', 1, 2)]), reverted]).when({ type: 'revertRelease', items, forced: true }).thenThrows('CONFLICT', 409);
      spec.given([created]).when({ type: 'revertRelease', items: [], forced: false }).thenThrows('CONFLICT', 409);
      spec.given([created, publishedEvent('failed', [blocked])]).when({ type: 'revertRelease', items: [], forced: false }).thenThrows('CONFLICT', 409);
    });
  });
});
