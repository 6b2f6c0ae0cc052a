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
});
