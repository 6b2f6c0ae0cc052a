// The compliance routes' shapes as the service answers them, and query strings with a `filter` in its JSON form.

export interface Page<T> {
  data: T[];
  meta: { total: number; page: number; pageSize: number };
}

export interface AuditEntry {
  eventId: string;
  action: string;
  actor: { kind: string; id: string | null; impersonatorId: string | null };
  target: string;
  requestId: string | null;
  occurredAt: string;
  details: Record<string, unknown>;
  agent: { onBehalfOf: string; approvedBy: string | null } | null;
}

export interface CheckpointEntry {
  seq: number;
  position: number;
  eventCount: number;
  streamCount: number;
  headHash: string;
  digest: string;
  createdAt: string;
  keyId: string;
  algorithm: string;
}

export interface LogVerification {
  valid: boolean;
  eventsChecked: number;
  streamsChecked: number;
  firstBrokenLink: null | { position: number; streamId: string; streamPosition: number; reason: string };
  checkpoints: { checked: number; latestSeq: number | null; problems: { kind: string; streamId?: string; checkpointSeq: number; detail: string }[] };
  erasures: { executed: number; latest: { erasureId: string; collection: string; executedAt: string; recordCount: number; shreddedValues: number }[] };
}

export type ErasureStatus = 'requested' | 'confirmed' | 'executed';

export interface Erasure {
  id: string;
  status: ErasureStatus;
  collection: string;
  subjectHash: string;
  reason: string;
  matchedCount: number;
  requestedBy: string;
  requestedAt: string;
  confirmedBy: string | null;
  confirmedAt: string | null;
  executedBy: string | null;
  executedAt: string | null;
  recordCount: number | null;
  shreddedValues: number | null;
}

export interface Report {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  params: { from: string; to: string; collections: string[]; actions: string[]; format: 'json' | 'csv' };
  requestedBy: { kind: string; id: string | null };
  progress: { entries: number; total?: number };
  createdAt: string;
  completedAt?: string;
  error?: string;
  sha256?: string;
  bytes?: number;
  entries?: number;
  valid?: boolean;
  problems?: number;
  keyId?: string;
}

export interface FieldAccessEntry {
  at: string;
  actor: { kind: string; id: string | null };
  collection: string;
  itemId: string;
  fields: string[];
  sensitivity: string;
  requestId?: string;
}

export interface Consent {
  consentType: string;
  granted: boolean;
  grantedAt: string | null;
  withdrawnAt: string | null;
  source: string;
  version: string;
  updatedAt: string;
}

export interface Restriction {
  restricted: boolean;
  reason: string | null;
  restrictedAt: string | null;
}

export const CONSENT_TYPES = ['marketing', 'analytics', 'personalization', 'functional', 'sale_share'] as const;

/** A query string: `filter` (an object) in its JSON form, the rest as given; empty values left out. */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === 'filter') {
      if (Object.keys(value as object).length > 0) params.set('filter', JSON.stringify(value));
    } else params.set(key, String(value as string | number));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The `_gte`/`_lte` condition of two local date-time inputs; undefined when both are empty. */
export function timeRange(from: string, to: string): { _gte?: string; _lte?: string } | undefined {
  const start = isoOf(from);
  const end = isoOf(to);
  if (!start && !end) return undefined;
  return { ...(start ? { _gte: start } : {}), ...(end ? { _lte: end } : {}) };
}

/** A local date-time input's value (no zone) as an ISO instant; '' stays undefined. */
export function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
