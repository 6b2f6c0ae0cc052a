// The releases area's view of the API: the shapes of releases (docs/publishing.md), the state machine
// of what each status allows, and the small reads the forms need (collections, items, revisions).
import type { SvcClient } from '@svc-cms/sdk';

export const RELEASE_STATUSES = ['draft', 'scheduled', 'published', 'partially_failed', 'failed'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];
export type AtomicityMode = 'all_or_nothing' | 'best_effort';

export interface MaintenanceWindow {
  dow: number;
  start: string;
  end: string;
}

export interface ReleaseItem {
  collection: string;
  itemId: string;
  targetStatus: string;
  revisionId: string | null;
  addedAt: string;
  outcome: 'published' | 'skipped' | 'failed' | null;
  reason: string | null;
}

export interface ReleaseSummary {
  id: string;
  name: string;
  status: ReleaseStatus;
  atomicityMode: AtomicityMode;
  publishAt: string | null;
  maintenanceWindow: { windows: MaintenanceWindow[] } | null;
  itemCount: number;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  revertedAt: string | null;
}

export interface Release extends ReleaseSummary {
  items: ReleaseItem[];
}

export interface Outcome {
  collection: string;
  itemId: string;
  outcome: 'published' | 'skipped' | 'failed';
  reason?: string;
  message?: string;
  fromVersion?: number;
  toVersion?: number;
}

export interface PublishResult {
  release: Release;
  status: string;
  outcomes: Outcome[];
}

export const STATUS_LABELS: Record<ReleaseStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  published: 'Published',
  partially_failed: 'Partially failed',
  failed: 'Failed',
};

export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * What a release in each state may do (docs/publishing.md, "States"): a published release is a record
 * (no edit, no delete, no second publish) whose items can be reverted once; a release that published
 * anything cannot be deleted; failed or partially failed ones can be edited and published again; only
 * a draft or scheduled release is scheduled by the scheduler.
 */
export function allowedActions(release: ReleaseSummary) {
  const { status } = release;
  const published = status === 'published';
  return {
    editItems: !published,
    schedule: status === 'draft' || status === 'scheduled',
    unschedule: status === 'scheduled',
    publish: !published,
    preview: !published,
    revert: (published || status === 'partially_failed') && release.revertedAt === null,
    delete: status === 'draft' || status === 'scheduled' || status === 'failed',
  };
}

export function releaseKey(id: string) {
  return ['releases', 'detail', id] as const;
}

export async function fetchRelease(client: SvcClient, id: string): Promise<Release> {
  const { data } = await client.api.GET('/api/v1/releases/{id}', { params: { path: { id } } });
  return (data as unknown as { data: Release }).data;
}

export async function patchRelease(client: SvcClient, id: string, body: Record<string, unknown>): Promise<Release> {
  const { data } = await client.api.PATCH('/api/v1/releases/{id}', { params: { path: { id } }, body: body as never });
  return (data as unknown as { data: Release }).data;
}

export interface CollectionInfo {
  name: string;
  displayName?: string | null;
}

export async function fetchCollections(client: SvcClient): Promise<CollectionInfo[]> {
  const { data } = await client.api.GET('/api/v1/collections');
  return (data!.data as CollectionInfo[]).filter((collection) => !collection.name.startsWith('svc_'));
}

export type ItemRecord = Record<string, unknown> & { id: string; status?: string };

/** The item's name for people: its first title-like field, or its id. */
export function itemLabel(item: ItemRecord | undefined, fallback: string): string {
  if (!item) return fallback;
  for (const key of ['title', 'name', 'label', 'slug', 'headline']) {
    const value = item[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return fallback;
}

export async function fetchItems(client: SvcClient, collection: string, headers?: Record<string, string>, ids?: string[]): Promise<ItemRecord[]> {
  const query: Record<string, string> = { limit: '200', sort: '-updatedAt' };
  if (ids) query.filter = JSON.stringify({ id: { _in: ids } });
  const { data } = await client.api.GET('/api/v1/items/{collection}', {
    params: { path: { collection }, query },
    ...(headers ? { headers } : {}),
  });
  return (data as { data: ItemRecord[] }).data;
}

export interface RevisionInfo {
  revisionId: string;
  version: number;
  timestamp: string;
  event: string;
  staged: boolean;
  data: Record<string, unknown>;
}

export async function fetchRevisions(client: SvcClient, collection: string, id: string): Promise<RevisionInfo[]> {
  const { data } = await client.api.GET('/api/v1/items/{collection}/{id}/revisions', { params: { path: { collection, id }, query: { limit: 50 } } });
  return (data as { data: RevisionInfo[] }).data;
}

/** A `datetime-local` value (the browser's time zone) as the ISO instant the API takes. */
export function localToIso(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An ISO instant as a `datetime-local` value in the browser's time zone. */
export function isoToLocal(value: string | null): string {
  if (!value) return '';
  const date = new Date(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function formatTime(value: string | null): string {
  return value ? new Date(value).toLocaleString() : '—';
}
