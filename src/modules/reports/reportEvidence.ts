// The evidence of a compliance report that the log is whole (docs/compliance-reports.md): the site's
// signed log checkpoints that cover the period, and the verdict of the audit area's own verifiers
// (verifyChains, verifyCheckpoints) with what only a period adds: whether a checkpoint covers the
// period's last entry, and whether the audit entries of the period are still the log's events.
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { verifyCheckpoints } from '../audit/checkpointQueries.ts';
import { verifyChains } from '../audit/queries.ts';

/** The period's audit entries whatever the report's filters: its first and last positions and its count. */
export interface PeriodBounds {
  firstPosition: number | null;
  lastPosition: number | null;
  entries: number;
}

export interface ReportCheckpoint {
  seq: number;
  position: number;
  eventCount: number;
  headHash: string;
  digest: string;
  createdAt: string;
  keyId: string;
  /** The exact canonical JSON the checkpoint signed, and its signature (base64url): verifiable offline. */
  payload: string;
  signature: string;
}

export interface EvidenceProblem {
  kind: string;
  detail: string;
  checkpointSeq?: number;
  streamId?: string;
  position?: number;
}

export interface ReportVerification {
  valid: boolean;
  /** What was checked: the site's hash chains, its checkpoints, and the period against them. */
  chains: { valid: boolean; eventsChecked: number; streamsChecked: number };
  checkpoints: { checked: number; latestSeq: number | null; openingSeq: number | null; closingSeq: number | null; covered: boolean };
  period: { entries: number; events: number };
  problems: EvidenceProblem[];
}

export interface ReportEvidence {
  checkpoints: ReportCheckpoint[];
  verification: ReportVerification;
}

export interface Period {
  from: string;
  to: string;
}

/** The period's bounds, from audit_log_time (site_id, occurred_at, position). */
export async function periodBounds(tx: Queryable, siteId: string, period: Period): Promise<PeriodBounds> {
  const [row] = await tx.query<{ first: number | null; last: number | null; entries: number }>(sql`
    SELECT min(position) AS first, max(position) AS last, count(*)::int AS entries
      FROM audit_log WHERE site_id = ${siteId} AND occurred_at >= ${period.from}::timestamptz AND occurred_at < ${period.to}::timestamptz`);
  return { firstPosition: row?.first ?? null, lastPosition: row?.last ?? null, entries: row?.entries ?? 0 };
}

interface CheckpointRow {
  seq: number;
  position: number;
  event_count: number;
  head_hash: string;
  digest: string;
  created_at: Date;
  key_id: string;
  payload: string;
  signature: string;
}

/** The events of the period's position range: how many were recorded in the period, and the last in log order (transaction, position). */
async function periodEvents(tx: Queryable, siteId: string, period: Period, bounds: PeriodBounds) {
  const [range] = await tx.query<{ events: number; last_tx: string | null }>(sql`
    SELECT count(*) FILTER (WHERE recorded_at >= ${period.from}::timestamptz AND recorded_at < ${period.to}::timestamptz)::int AS events,
           max(tx_id)::text AS last_tx
      FROM events WHERE site_id = ${siteId} AND position >= ${bounds.firstPosition} AND position <= ${bounds.lastPosition}`);
  if (!range?.last_tx) return { events: range?.events ?? 0, last: null };
  const [last] = await tx.query<{ position: number }>(sql`
    SELECT max(position) AS position FROM events
     WHERE tx_id = ${range.last_tx}::xid8 AND site_id = ${siteId} AND position >= ${bounds.firstPosition} AND position <= ${bounds.lastPosition}`);
  return { events: range.events, last: { txId: range.last_tx, position: last!.position } };
}

/**
 * The checkpoints that cover the period: from the newest one before its first entry (none when the
 * period starts with the site's log) to the first one that covers its last entry, in log order. An
 * empty period is covered by the first checkpoint taken at or after its end.
 */
async function coveringSeqs(tx: Queryable, siteId: string, period: Period, bounds: PeriodBounds, last: { txId: string; position: number } | null) {
  if (bounds.firstPosition === null || bounds.lastPosition === null) {
    const [closing] = await tx.query<{ seq: number }>(sql`
      SELECT seq FROM log_checkpoints WHERE site_id = ${siteId} AND created_at >= ${period.to}::timestamptz ORDER BY seq LIMIT 1`);
    return { openingSeq: closing?.seq ?? null, closingSeq: closing?.seq ?? null };
  }
  const [opening] = await tx.query<{ seq: number }>(sql`
    SELECT seq FROM log_checkpoints WHERE site_id = ${siteId} AND position < ${bounds.firstPosition} ORDER BY seq DESC LIMIT 1`);
  const lastTx = last?.txId ?? '0';
  const lastPosition = Math.max(last?.position ?? 0, bounds.lastPosition);
  const [closing] = await tx.query<{ seq: number }>(sql`
    SELECT seq FROM log_checkpoints
     WHERE site_id = ${siteId} AND position >= ${lastPosition} AND (tx_id, position) >= (${lastTx}::xid8, ${last?.position ?? 0}::bigint)
     ORDER BY seq LIMIT 1`);
  return { openingSeq: opening?.seq ?? null, closingSeq: closing?.seq ?? null };
}

async function checkpointsBetween(tx: Queryable, siteId: string, firstSeq: number, lastSeq: number | null): Promise<ReportCheckpoint[]> {
  const rows = await tx.query<CheckpointRow>(sql`
    SELECT seq, position, event_count, head_hash, digest, created_at, key_id, payload, signature FROM log_checkpoints
     WHERE site_id = ${siteId} AND seq >= ${firstSeq} AND (${lastSeq}::bigint IS NULL OR seq <= ${lastSeq}::bigint) ORDER BY seq`);
  return rows.map((row) => ({
    seq: row.seq,
    position: row.position,
    eventCount: row.event_count,
    headHash: row.head_hash,
    digest: row.digest,
    createdAt: row.created_at.toISOString(),
    keyId: row.key_id,
    payload: row.payload,
    signature: row.signature,
  }));
}

/** The checkpoints covering the period and the verification of the log, read in one transaction after the entries were written. */
export async function periodEvidence(tx: Queryable, siteId: string, period: Period, bounds: PeriodBounds, key: SigningKey): Promise<ReportEvidence> {
  const empty = bounds.firstPosition === null;
  const events = empty ? { events: 0, last: null } : await periodEvents(tx, siteId, period, bounds);
  const { openingSeq, closingSeq } = await coveringSeqs(tx, siteId, period, bounds, events.last);
  const listed = empty ? (closingSeq === null ? [] : await checkpointsBetween(tx, siteId, closingSeq, closingSeq)) : await checkpointsBetween(tx, siteId, openingSeq ?? 1, closingSeq);

  const chains = await verifyChains(tx, siteId);
  const checkpoints = await verifyCheckpoints(tx, siteId, key);
  const problems: EvidenceProblem[] = [];
  if (chains.firstBrokenLink) {
    const link = chains.firstBrokenLink;
    problems.push({
      kind: link.reason,
      streamId: link.streamId,
      position: link.position,
      detail: `Event ${link.streamPosition} of the stream breaks its hash chain (${link.reason.replace('_', ' ')})`,
    });
  }
  for (const problem of checkpoints.problems) problems.push({ ...problem });
  if (closingSeq === null) {
    problems.push({
      kind: 'period_not_covered',
      detail: empty
        ? 'No signed checkpoint was taken at or after the end of the period'
        : `No signed checkpoint covers the period's last entry (position ${bounds.lastPosition}): it is attested by its hash chain only`,
    });
  }
  if (!empty && events.events !== bounds.entries) {
    problems.push({
      kind: 'audit_log_mismatch',
      detail: `The audit log has ${bounds.entries} entries in the period and the event log ${events.events} events: events were removed, or the audit log is behind`,
    });
  }
  return {
    checkpoints: listed,
    verification: {
      valid: problems.length === 0,
      chains: { valid: chains.valid, eventsChecked: chains.eventsChecked, streamsChecked: chains.streamsChecked },
      checkpoints: { checked: checkpoints.checked, latestSeq: checkpoints.latestSeq, openingSeq, closingSeq, covered: closingSeq !== null },
      period: { entries: bounds.entries, events: events.events },
      problems,
    },
  };
}
