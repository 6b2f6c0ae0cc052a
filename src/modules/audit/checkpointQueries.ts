// Reading a site's signed log checkpoints, and checking its log against them
// (docs/verifiable-history.md).
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { checkpointDigest, checkpointPayloadText, CHECKPOINT_PAYLOAD_TYPE, type CheckpointPayload } from './checkpointPayload.ts';

export interface CheckpointEntry {
  seq: number;
  position: number;
  eventCount: number;
  streamCount: number;
  headHash: string;
  previousDigest: string | null;
  digest: string;
  createdAt: string;
  keyId: string;
  algorithm: string;
  /** The exact string that was signed. */
  payload: string;
  signature: string;
}

/** The statements of a page of the site's checkpoints, newest first, and of their total; both read the primary key. */
export function checkpointListStatements(siteId: string, query: { limit: number; page: number }): { page: SqlFragment; total: SqlFragment } {
  return {
    page: sql`
      SELECT seq, position, event_count, stream_count, head_hash, previous_digest, digest, created_at, key_id, algorithm, payload, signature
        FROM log_checkpoints WHERE site_id = ${siteId}
       ORDER BY seq DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
    total: sql`SELECT count(*)::int AS total FROM log_checkpoints WHERE site_id = ${siteId}`,
  };
}

export async function listCheckpoints(tx: Queryable, siteId: string, query: { limit: number; page: number }): Promise<{ checkpoints: CheckpointEntry[]; total: number }> {
  const statements = checkpointListStatements(siteId, query);
  const rows = await tx.query<{
    seq: number; position: number; event_count: number; stream_count: number; head_hash: string; previous_digest: string | null;
    digest: string; created_at: Date; key_id: string; algorithm: string; payload: string; signature: string;
  }>(statements.page);
  const [count] = await tx.query<{ total: number }>(statements.total);
  return {
    total: count?.total ?? 0,
    checkpoints: rows.map((row) => ({
      seq: row.seq,
      position: row.position,
      eventCount: row.event_count,
      streamCount: row.stream_count,
      headHash: row.head_hash,
      previousDigest: row.previous_digest,
      digest: row.digest,
      createdAt: row.created_at.toISOString(),
      keyId: row.key_id,
      algorithm: row.algorithm,
      payload: row.payload,
      signature: row.signature,
    })),
  };
}

export type CheckpointProblemKind = 'missing_stream' | 'truncated_tail' | 'checkpoint_mismatch' | 'bad_signature';

export interface CheckpointProblem {
  kind: CheckpointProblemKind;
  streamId?: string;
  checkpointSeq: number;
  detail: string;
}

export interface CheckpointVerification {
  /** The checkpoints checked: all of the site's. */
  checked: number;
  latestSeq: number | null;
  /** At most MAX_PROBLEMS, in the order found. */
  problems: CheckpointProblem[];
}

/** Checkpoints read per statement while their signatures and chain are checked. */
const PAGE = 500;
/** The answer stays small whatever was done to the log. */
export const MAX_PROBLEMS = 100;

interface CheckpointRow {
  seq: number;
  tx_id: string;
  position: number;
  event_count: number;
  stream_count: number;
  streams_touched: number;
  streams_digest: string;
  head_hash: string;
  previous_digest: string | null;
  digest: string;
  key_id: string;
  algorithm: string;
  payload: string;
  signature: string;
  created_at: Date;
  /** What svc_checkpoint_streams_digest finds in log_checkpoint_streams now. */
  touched_now: number;
  streams_digest_now: string;
}

/**
 * Checks every checkpoint of the site and the log against them. It checks each checkpoint's
 * signature and digest, that its columns are its payload, and that it chains to the one before.
 * It recomputes the head hash at each checkpoint from the events (svc_checkpoint_recompute), and
 * it checks that the newest event each checkpoint attests for each stream is still the stream's
 * newest or older. Memory stays bounded: checkpoints are read a page at a time, and the log is
 * walked in the database.
 */
export async function verifyCheckpoints(tx: Queryable, siteId: string, key: SigningKey): Promise<CheckpointVerification> {
  const problems: CheckpointProblem[] = [];
  const report = (problem: CheckpointProblem) => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
  };
  let checked = 0;
  let previous: { seq: number; digest: string } | null = null;
  for (;;) {
    const rows: CheckpointRow[] = await tx.query<CheckpointRow>(sql`
      SELECT c.seq, c.tx_id::text AS tx_id, c.position, c.event_count, c.stream_count, c.streams_touched, c.streams_digest, c.head_hash,
             c.previous_digest, c.digest, c.key_id, c.algorithm, c.payload, c.signature, c.created_at,
             d.touched AS touched_now, d.digest AS streams_digest_now
        FROM log_checkpoints c CROSS JOIN LATERAL svc_checkpoint_streams_digest(c.site_id, c.seq) d
       WHERE c.site_id = ${siteId} AND c.seq > ${previous?.seq ?? 0}
       ORDER BY c.seq LIMIT ${PAGE}`);
    for (const row of rows) {
      checkCheckpoint(row, siteId, previous, key, report);
      previous = { seq: row.seq, digest: checkpointDigest(row.payload) };
      checked += 1;
    }
    if (rows.length < PAGE) break;
  }
  if (!previous) return { checked: 0, latestSeq: null, problems };

  const [diverged] = await tx.query<{
    checkpoint_seq: number; recorded_head: string; recomputed_head: string; recorded_events: number; recomputed_events: number;
    recorded_streams: number; recomputed_streams: number;
  }>(sql`SELECT * FROM svc_checkpoint_recompute(${siteId})`);
  if (diverged) {
    report({
      kind: 'checkpoint_mismatch',
      checkpointSeq: diverged.checkpoint_seq,
      detail:
        `The site's events up to this checkpoint no longer give the head it records: ${diverged.recomputed_events} events in ` +
        `${diverged.recomputed_streams} streams hash to ${diverged.recomputed_head}, and it records ${diverged.recorded_events} events in ` +
        `${diverged.recorded_streams} streams with head ${diverged.recorded_head}`,
    });
  }

  for (const problem of await streamProblems(tx, siteId, previous.seq, MAX_PROBLEMS)) report(problem);
  return { checked, latestSeq: previous.seq, problems };
}

function checkCheckpoint(
  row: CheckpointRow,
  siteId: string,
  previous: { seq: number; digest: string } | null,
  key: SigningKey,
  report: (problem: CheckpointProblem) => void,
): void {
  const mismatch = (detail: string) => report({ kind: 'checkpoint_mismatch', checkpointSeq: row.seq, detail });
  const expectedSeq = (previous?.seq ?? 0) + 1;
  if (row.seq !== expectedSeq) {
    mismatch(`Checkpoint${row.seq - expectedSeq > 1 ? `s ${expectedSeq} to ${row.seq - 1} are` : ` ${expectedSeq} is`} missing`);
  }
  if (row.key_id !== key.keyId) {
    report({ kind: 'bad_signature', checkpointSeq: row.seq, detail: `Signed by key ${row.key_id}, not by this deployment's key ${key.keyId}` });
  } else if (!key.verify(row.payload, row.signature)) {
    report({ kind: 'bad_signature', checkpointSeq: row.seq, detail: `Its signature does not verify with key ${key.keyId}` });
  }
  if (checkpointDigest(row.payload) !== row.digest) mismatch('Its digest is not the SHA-256 of its payload');
  const recorded: CheckpointPayload = {
    type: CHECKPOINT_PAYLOAD_TYPE,
    version: 1,
    siteId,
    seq: row.seq,
    lastTxId: row.tx_id,
    position: row.position,
    eventCount: row.event_count,
    streamCount: row.stream_count,
    streamsTouched: row.streams_touched,
    streamsDigest: row.streams_digest,
    headHash: row.head_hash,
    previousDigest: row.previous_digest,
    createdAt: row.created_at.toISOString(),
    keyId: row.key_id,
    algorithm: row.algorithm as 'Ed25519',
  };
  if (checkpointPayloadText(recorded) !== row.payload) {
    mismatch(`Its recorded fields differ from its signed payload: ${differingFields(recorded, row.payload).join(', ')}`);
  }
  if (previous && previous.seq === row.seq - 1 && row.previous_digest !== previous.digest) {
    mismatch(`It does not chain to checkpoint ${previous.seq}: its previous digest is not the digest of that checkpoint's payload`);
  }
  if (!previous && row.seq === 1 && row.previous_digest !== null) mismatch('The first checkpoint names a previous digest');
  if (row.touched_now !== row.streams_touched || row.streams_digest_now !== row.streams_digest) {
    mismatch(`The stream heads kept for it (${row.touched_now} streams) no longer give the streams digest it records (${row.streams_touched} streams)`);
  }
}

/** The payload's fields that differ from those the row records (all of them when it is not JSON). */
function differingFields(recorded: CheckpointPayload, payload: string): string[] {
  let signed: Record<string, unknown>;
  try {
    signed = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return ['payload (not JSON)'];
  }
  const fields = new Set([...Object.keys(recorded), ...Object.keys(signed)]);
  const differing = [...fields].filter((field) => JSON.stringify((recorded as unknown as Record<string, unknown>)[field]) !== JSON.stringify(signed[field]));
  return differing.length > 0 ? differing : ['payload (not canonical JSON)'];
}

/**
 * Streams whose newest attested event is gone. For each stream, it takes the newest event that a
 * checkpoint attests. It reports a missing stream when the stream has no events left, a truncated
 * tail when the stream now ends before that event, and a mismatch when that event has another hash
 * or is gone from the middle of the stream.
 */
async function streamProblems(tx: Queryable, siteId: string, latestSeq: number, limit: number): Promise<CheckpointProblem[]> {
  const rows = await tx.query<{ stream_id: string; seq: number; stream_position: number; hash: string; newest_position: number | null; event_hash: string | null }>(sql`
    WITH attested AS (
      SELECT DISTINCT ON (s.stream_id) s.stream_id, s.seq, s.stream_position, s.hash
        FROM log_checkpoint_streams s
       WHERE s.site_id = ${siteId} AND s.seq <= ${latestSeq}
       ORDER BY s.stream_id DESC, s.stream_position DESC)
    SELECT a.stream_id, a.seq, a.stream_position, a.hash, newest.stream_position AS newest_position, e.hash AS event_hash
      FROM attested a
      LEFT JOIN LATERAL (SELECT n.stream_position FROM events n WHERE n.stream_id = a.stream_id ORDER BY n.stream_position DESC LIMIT 1) newest ON true
      LEFT JOIN events e ON e.stream_id = a.stream_id AND e.stream_position = a.stream_position
     WHERE newest.stream_position IS NULL OR newest.stream_position < a.stream_position OR e.hash IS DISTINCT FROM a.hash
     ORDER BY a.seq, a.stream_id
     LIMIT ${limit}`);
  return rows.map((row): CheckpointProblem => {
    const base = { streamId: row.stream_id, checkpointSeq: row.seq };
    if (row.newest_position === null) {
      return { kind: 'missing_stream', ...base, detail: `The stream has no events, and checkpoint ${row.seq} attests its event ${row.stream_position}` };
    }
    if (row.newest_position < row.stream_position) {
      return {
        kind: 'truncated_tail',
        ...base,
        detail: `The stream ends at event ${row.newest_position}, and checkpoint ${row.seq} attests events up to ${row.stream_position}`,
      };
    }
    return {
      kind: 'checkpoint_mismatch',
      ...base,
      detail:
        row.event_hash === null
          ? `Event ${row.stream_position} of the stream, which checkpoint ${row.seq} attests, is gone`
          : `Event ${row.stream_position} of the stream no longer has the hash that checkpoint ${row.seq} attests`,
    };
  });
}
