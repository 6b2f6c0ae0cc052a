// The history and review pages' shapes and helpers (paths, the fields left out of diffs).

export type Json = Record<string, unknown>;

/** `/items/<collection>/<id>` with both parts encoded. */
export function itemPath(collection: string, id: string): string {
  return `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
}

/** Fields an item carries that are not its content: left out of diffs and value tables. */
export const SYSTEM_FIELDS = new Set(['id', 'createdAt', 'updatedAt', 'userCreated', 'userUpdated', 'deletedAt', 'version', 'date_created', 'date_updated', 'user_created', 'user_updated']);

export interface Revision {
  revisionId: string;
  version: number;
  event: string;
  actor: { kind: string; id: string | null };
  timestamp: string;
  staged: boolean;
  data: Json;
  delta: Json;
}

export interface ItemVersion {
  key: string;
  name: string;
  data: Json;
  baseVersion: number;
  mainChanged: boolean;
  createdAt: string;
  updatedAt: string;
  promotedAt: string | null;
}

/** A value as one line of text. */
export function showValue(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/** A moment as a `datetime-local` input holds it (local time, to the millisecond). */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number, size = 2) => String(value).padStart(size, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}
