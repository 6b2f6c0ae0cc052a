// A release of one site: create, change its meta and schedule, add and remove items, delete. The
// state machine of the spec: created without publishAt → draft, with it → scheduled; setting or
// clearing publishAt moves it between the two. A published release is a record of what went out:
// nothing of it changes (409 RELEASE_IMMUTABLE), and a release that published anything (published,
// partially_failed) cannot be deleted. A publish records its outcomes (the item writes are the
// handler's, in the same transaction): a draft, scheduled, failed or partially_failed release may be
// published, a published one not (409 ALREADY_PUBLISHED). A revert brings back what a publish moved.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type AtomicityMode, type MaintenanceWindow, type Outcome, type PublishStatus, type ReleaseChanges, type ReleaseEvent, releaseEventSchemas, type ReleaseItem, type ReleaseItemKey, type ReleaseStatus, type RevertedItem } from './events.ts';

export type { AtomicityMode, MaintenanceWindow, Outcome, PublishStatus, ReleaseEvent, ReleaseItem, ReleaseItemKey, ReleaseStatus, RevertedItem };

export interface ReleaseMeta {
  name: string;
  atomicityMode: AtomicityMode;
  publishAt: string | null;
  maintenanceWindow: MaintenanceWindow | null;
}

export type ReleaseCommand =
  | ({ type: 'createRelease'; releaseId: string; items: ReleaseItem[]; now: string } & ReleaseMeta)
  | { type: 'updateRelease'; changes: Partial<ReleaseMeta>; addItems?: ReleaseItem[]; removeItems?: ReleaseItemKey[]; now: string }
  | { type: 'deleteRelease' }
  | { type: 'publishRelease'; outcomes: Outcome[]; trigger: 'manual' | 'scheduler' }
  | { type: 'revertRelease'; items: RevertedItem[]; forced: boolean };

/** An item a publish moved: the version before the release's first publish of it, and the one it left. */
export interface PublishedItem {
  fromVersion: number;
  toVersion: number;
}

export interface ReleaseState extends ReleaseMeta {
  status: 'absent' | 'deleted' | ReleaseStatus;
  releaseId: string | null;
  /** By `itemKey`. */
  items: Record<string, ReleaseItem>;
  /** By `itemKey`: what the publishes moved (a revert's work). */
  published: Record<string, PublishedItem>;
  reverted: boolean;
}

export const itemKey = (item: ReleaseItemKey): string => `${item.collection}/${item.itemId}`;

const invalid = (message: string, path: (string | number)[]) => new AppError('VALIDATION_FAILED', message, { path: ['body', ...path], unprocessable: true });

function assertNotPast(publishAt: string | null | undefined, now: string): void {
  if (publishAt && Date.parse(publishAt) < Date.parse(now)) throw invalid('publishAt must not be in the past', ['publishAt']);
}

/** The items with each key once; a second entry for the same item is refused at its index. */
function assertDistinct(items: readonly ReleaseItemKey[], field: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(itemKey(item))) throw invalid('This item is listed twice', [field, index]);
    seen.add(itemKey(item));
  });
}

const scheduleStatus = (publishAt: string | null): ReleaseStatus => (publishAt ? 'scheduled' : 'draft');

function assertExists(state: ReleaseState): void {
  if (state.status === 'absent' || state.status === 'deleted') throw new AppError('NOT_FOUND', 'Release not found');
}

/** all_or_nothing publishes everything or nothing; best_effort ends published, partially_failed or failed by what went out. */
export function publishStatus(outcomes: readonly Outcome[]): PublishStatus {
  const published = outcomes.filter((outcome) => outcome.outcome === 'published').length;
  if (published === outcomes.length) return 'published';
  return published === 0 ? 'failed' : 'partially_failed';
}

/** Whether a publish may run now: 404 for no release, 409 ALREADY_PUBLISHED, 422 EMPTY_RELEASE. */
export function assertPublishable(state: ReleaseState): void {
  assertExists(state);
  if (state.status === 'published') throw new AppError('ALREADY_PUBLISHED', 'This release is already published');
  if (Object.keys(state.items).length === 0) throw new AppError('EMPTY_RELEASE', 'A release with no items cannot be published', { path: [] });
}

/** Whether a revert may run: the release published something and was not reverted yet (409 otherwise). */
export function assertRevertible(state: ReleaseState): void {
  assertExists(state);
  if (state.reverted) throw new AppError('CONFLICT', 'This release was already reverted', { path: [] });
  if (Object.keys(state.published).length === 0) throw new AppError('CONFLICT', 'This release has published nothing to revert', { path: [] });
}

function foldPublished(published: Record<string, PublishedItem>, outcomes: readonly Outcome[]): Record<string, PublishedItem> {
  const next = { ...published };
  for (const outcome of outcomes) {
    if (outcome.outcome !== 'published' || outcome.fromVersion === undefined || outcome.toVersion === undefined) continue;
    const key = itemKey(outcome);
    next[key] = { fromVersion: next[key]?.fromVersion ?? outcome.fromVersion, toVersion: outcome.toVersion };
  }
  return next;
}

function metaChanges(state: ReleaseState, requested: Partial<ReleaseMeta>): ReleaseChanges {
  const changes: ReleaseChanges = {};
  if (requested.name !== undefined && requested.name !== state.name) changes.name = requested.name;
  if (requested.atomicityMode !== undefined && requested.atomicityMode !== state.atomicityMode) changes.atomicityMode = requested.atomicityMode;
  if (requested.publishAt !== undefined && requested.publishAt !== state.publishAt) changes.publishAt = requested.publishAt;
  if (requested.maintenanceWindow !== undefined && JSON.stringify(requested.maintenanceWindow) !== JSON.stringify(state.maintenanceWindow)) {
    changes.maintenanceWindow = requested.maintenanceWindow;
  }
  // Only a release that is waiting moves between draft and scheduled; a failed one keeps its status.
  if (changes.publishAt !== undefined && (state.status === 'draft' || state.status === 'scheduled')) {
    const status = scheduleStatus(changes.publishAt);
    if (status !== state.status) changes.status = status;
  }
  return changes;
}

function decideUpdate(command: Extract<ReleaseCommand, { type: 'updateRelease' }>, state: ReleaseState): ReleaseEvent[] {
  assertExists(state);
  if (state.status === 'published') throw new AppError('RELEASE_IMMUTABLE', 'A published release cannot be changed');
  assertNotPast(command.changes.publishAt, command.now);
  const removeItems = command.removeItems ?? [];
  const addItems = command.addItems ?? [];
  assertDistinct(removeItems, 'removeItems');
  assertDistinct(addItems, 'addItems');
  removeItems.forEach((item, index) => {
    if (!state.items[itemKey(item)]) throw new AppError('ITEM_NOT_FOUND', 'This item is not in the release', { path: ['body', 'removeItems', index] });
  });
  const releaseId = state.releaseId!;
  const events: ReleaseEvent[] = [];
  const changes = metaChanges(state, command.changes);
  if (Object.keys(changes).length > 0) events.push({ type: 'release.updated', data: { releaseId, changes } });
  const removed = new Set(removeItems.map(itemKey));
  if (removeItems.length > 0) {
    events.push({ type: 'release.items_removed', data: { releaseId, items: removeItems.map(({ collection, itemId }) => ({ collection, itemId })) } });
  }
  const added = addItems.filter((item) => {
    const current = removed.has(itemKey(item)) ? undefined : state.items[itemKey(item)];
    return !current || current.targetStatus !== item.targetStatus || current.revisionId !== item.revisionId;
  });
  if (added.length > 0) events.push({ type: 'release.items_added', data: { releaseId, items: added } });
  return events;
}

const withItems = (items: Record<string, ReleaseItem>, added: readonly ReleaseItem[]) => ({
  ...items,
  ...Object.fromEntries(added.map((item) => [itemKey(item), item])),
});

export const releaseDecider: Decider<ReleaseState, ReleaseCommand, ReleaseEvent> = {
  eventTypes: eventTypesOf(releaseEventSchemas),
  initialState: () => ({
    status: 'absent',
    releaseId: null,
    name: '',
    atomicityMode: 'all_or_nothing',
    publishAt: null,
    maintenanceWindow: null,
    items: {},
    published: {},
    reverted: false,
  }),
  evolve(state, event) {
    switch (event.type) {
      case 'release.created': {
        const { releaseId, name, atomicityMode, publishAt, maintenanceWindow, status, items } = event.data;
        return { status, releaseId, name, atomicityMode, publishAt, maintenanceWindow, items: withItems({}, items), published: {}, reverted: false };
      }
      case 'release.updated': {
        const { changes } = event.data;
        return {
          ...state,
          status: changes.status ?? state.status,
          name: changes.name ?? state.name,
          atomicityMode: changes.atomicityMode ?? state.atomicityMode,
          publishAt: changes.publishAt !== undefined ? changes.publishAt : state.publishAt,
          maintenanceWindow: changes.maintenanceWindow !== undefined ? changes.maintenanceWindow : state.maintenanceWindow,
        };
      }
      case 'release.items_added':
        return { ...state, items: withItems(state.items, event.data.items) };
      case 'release.items_removed': {
        const removed = new Set(event.data.items.map(itemKey));
        return { ...state, items: Object.fromEntries(Object.entries(state.items).filter(([key]) => !removed.has(key))) };
      }
      case 'release.deleted':
        return { ...state, status: 'deleted' };
      case 'release.published':
        return { ...state, status: event.data.status, published: foldPublished(state.published, event.data.outcomes) };
      case 'release.reverted':
        return { ...state, reverted: true };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createRelease': {
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Release already exists');
        assertNotPast(command.publishAt, command.now);
        assertDistinct(command.items, 'addItems');
        const { releaseId, name, atomicityMode, publishAt, maintenanceWindow, items } = command;
        return [{ type: 'release.created', data: { releaseId, name, atomicityMode, publishAt, maintenanceWindow, status: scheduleStatus(publishAt), items } }];
      }
      case 'updateRelease':
        return decideUpdate(command, state);
      case 'deleteRelease':
        assertExists(state);
        if (state.status === 'published' || state.status === 'partially_failed') {
          throw new AppError('RELEASE_IMMUTABLE', 'A release that published items is kept as the record of what went out');
        }
        return [{ type: 'release.deleted', data: { releaseId: state.releaseId! } }];
      case 'publishRelease': {
        assertPublishable(state);
        const { outcomes, trigger } = command;
        return [{ type: 'release.published', data: { releaseId: state.releaseId!, status: publishStatus(outcomes), atomicityMode: state.atomicityMode, trigger, outcomes } }];
      }
      case 'revertRelease':
        assertRevertible(state);
        return [{ type: 'release.reverted', data: { releaseId: state.releaseId!, forced: command.forced, items: command.items } }];
    }
  },
};
