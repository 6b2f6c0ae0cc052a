// Calls of the history and review pages that the typed client makes awkward (loose JSON bodies, 204s):
// they go through the client's own pipeline (site header, token, refresh, errors as SvcError).
import type { SvcClient } from '@svc-cms/sdk';

export type Json = Record<string, unknown>;

export async function callApi<T>(client: SvcClient, method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const response = await client.fetch(new Request(`${client.baseUrl}/api/v1${path}`, init));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

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
