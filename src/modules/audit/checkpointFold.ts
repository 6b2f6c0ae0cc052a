// The arithmetic of log checkpoints, with no I/O (docs/verifiable-history.md). It folds a site's
// events, in log order, into the site's running head hash and counts, and decides where a
// checkpoint closes. The task (checkpointTask.ts) reads and writes the state, and signs the drafts.
import { createHash } from 'node:crypto';

/** The head of a log with no events. */
export const EMPTY_HEAD = '';

/**
 * One step of the head hash: head_k = sha256(head_{k-1} US position US eventHash), in hex, where US
 * is the unit separator (0x1f). It is the twin of svc_checkpoint_next_head, which verify uses.
 */
export function nextHeadHash(previousHead: string, position: number, eventHash: string): string {
  return createHash('sha256').update(`${previousHead}\x1f${position}\x1f${eventHash}`, 'utf8').digest('hex');
}

/** An event of the global log as the checkpoint task reads it (svc_checkpoint_read_log). */
export interface LogEvent {
  siteId: string;
  streamId: string;
  streamPosition: number;
  position: number;
  /** The event's transaction (xid8, as text). Log order is (txId, position). */
  txId: string;
  /** The event's own hash (its stream's chain). */
  hash: string;
}

/** A site's log as folded so far: one row of log_checkpoint_heads. */
export interface SiteLogState {
  siteId: string;
  /** The head over every event read so far. */
  headHash: string;
  eventCount: number;
  /** The streams started among those events (their event at stream position 1). */
  streamCount: number;
  /** The last event read, in log order ('0' and 0 before any). */
  lastTxId: string;
  lastPosition: number;
  /** Events read since the last checkpoint. */
  pendingEvents: number;
  /** The last checkpoint taken (0: none yet), and the digest of its payload. */
  lastSeq: number;
  lastDigest: string | null;
  /** When the last checkpoint was taken, or, before the first one, when the site's first event was read. */
  since: Date;
}

/** What a checkpoint records of the log. Its stream heads and its signature are added when it is written. */
export interface CheckpointDraft {
  siteId: string;
  seq: number;
  /** The last event it covers: every event of the site up to (txId, position) in log order. */
  txId: string;
  position: number;
  eventCount: number;
  streamCount: number;
  headHash: string;
}

/** The newest event of a stream among those a checkpoint (seq) covers since the one before it. */
export interface StreamHead {
  siteId: string;
  seq: number;
  streamId: string;
  streamPosition: number;
  hash: string;
}

export interface FoldedLog {
  /** The new state of each site that had events in the batch. */
  states: Map<string, SiteLogState>;
  /** The checkpoints that closed, in order. */
  drafts: CheckpointDraft[];
  streamHeads: StreamHead[];
}

export function newSiteLogState(siteId: string, now: Date): SiteLogState {
  return { siteId, headHash: EMPTY_HEAD, eventCount: 0, streamCount: 0, lastTxId: '0', lastPosition: 0, pendingEvents: 0, lastSeq: 0, lastDigest: null, since: now };
}

/**
 * Closes a checkpoint at the state's last event. It updates `state`: the checkpoint becomes the
 * last one, and nothing is pending anymore. The digest of the checkpoint is set when it is signed.
 */
export function closeCheckpoint(state: SiteLogState, now: Date): CheckpointDraft {
  const draft: CheckpointDraft = {
    siteId: state.siteId,
    seq: state.lastSeq + 1,
    txId: state.lastTxId,
    position: state.lastPosition,
    eventCount: state.eventCount,
    streamCount: state.streamCount,
    headHash: state.headHash,
  };
  state.lastSeq = draft.seq;
  state.pendingEvents = 0;
  state.since = now;
  return draft;
}

/**
 * Folds a batch of the global log (in log order) into the sites' states. A checkpoint closes at
 * the event that makes a site's pending events reach `every`. `before` is not changed.
 */
export function foldLogEvents(before: ReadonlyMap<string, SiteLogState>, events: readonly LogEvent[], options: { every: number; now: Date }): FoldedLog {
  const states = new Map<string, SiteLogState>();
  const drafts: CheckpointDraft[] = [];
  const streamHeads = new Map<string, StreamHead>();
  for (const event of events) {
    let state = states.get(event.siteId);
    if (!state) {
      const known = before.get(event.siteId);
      state = known ? { ...known } : newSiteLogState(event.siteId, options.now);
      states.set(event.siteId, state);
    }
    state.headHash = nextHeadHash(state.headHash, event.position, event.hash);
    state.eventCount += 1;
    if (event.streamPosition === 1) state.streamCount += 1;
    state.lastTxId = event.txId;
    state.lastPosition = event.position;
    state.pendingEvents += 1;
    const seq = state.lastSeq + 1;
    const key = `${event.siteId}\u0000${seq}\u0000${event.streamId}`;
    // Log order is commit-wise, so an event of a stream may be read after a later one of the same stream.
    const known = streamHeads.get(key);
    if (!known || known.streamPosition < event.streamPosition) {
      streamHeads.set(key, { siteId: event.siteId, seq, streamId: event.streamId, streamPosition: event.streamPosition, hash: event.hash });
    }
    if (state.pendingEvents >= options.every) drafts.push(closeCheckpoint(state, options.now));
  }
  return { states, drafts, streamHeads: [...streamHeads.values()] };
}
