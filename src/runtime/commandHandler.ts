// The one write path. A command names its decider and stream, how its state is loaded (the whole
// stream folded, only its head event, or nothing for an append-only stream), whether writers of the
// stream queue on a lock, the version the caller saw, and how conflicts are retried. The handler
// loads, checks, runs the command's step (writes to other streams, when it declares one), decides,
// appends with the expected version and projects inline, in one transaction. New streams of many
// requests may share one transaction instead (group commit: ./streamStarts.ts).
import { eventsOf, isEventOf, type Decider, type EventMetadata, type NewEvent, type StoredEvent } from '../../domain/shared/events.ts';
import { appendToStream, readStream, readStreamHead, StreamConflictError, type ExpectedVersion } from '../../infra/eventstore/eventStore.ts';
import type { Database, Queryable } from '../../infra/postgres/database.ts';
import { sql, type SqlQuery } from '../../infra/postgres/sql.ts';
import type { Projection } from '../../projections/projection.ts';
import { applyInline } from './projectionRunner.ts';
import type { StreamHeads } from './streamHeads.ts';

/** What the handler needs of the application context. */
export interface CommandContext {
  database: Database;
  projections: readonly Projection[];
  /** This instance's cache of stream heads (./streamHeads.ts): inSiteTransaction remembers what its commits appended. */
  streamHeads?: StreamHeads;
}

/**
 * fold: every event of the stream, in order (the default); head: only the last event, for aggregates
 * whose every event carries the whole state (items); none: no state, appended at any version (day
 * streams of sign-in failures or sensitive reads).
 */
export type StateLoading = 'fold' | 'head' | 'none';

export interface RetryPolicy {
  /** Tries in all when a concurrent append wins the stream (a 409 after the last). */
  attempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5 };

/**
 * Takes out of decided events what must never enter the log, before they are appended, in the
 * command's transaction: pii/phi values become references to the sensitive value store
 * (src/modules/encryption/itemSealer.ts), so that erasure can remove them (docs/privacy.md).
 */
export type EventSealer = <Event extends NewEvent>(tx: Queryable, events: Event[]) => Promise<Event[]>;

/** What a command is run against: its stream, its decider and how its state is loaded and checked. */
export interface CommandTarget<State, Command, Event extends NewEvent> {
  siteId: string;
  streamId: string;
  decider: Decider<State, Command, Event>;
  metadata: EventMetadata;
  load?: StateLoading;
  /** handleCommand only: how often a lost race is tried again from a fresh read (default DEFAULT_RETRY). */
  retry?: RetryPolicy;
  /** Writers of this stream queue on a transaction lock instead of racing to the append and retrying. */
  lock?: boolean;
  /**
   * Checks that need the loaded state and the transaction (rows that point at the aggregate, say):
   * run after loading, under the lock, before the version is compared and the decider runs. Reads
   * only: a workflow that writes other streams does so between `openCommandIn` and `decide`.
   */
  check?: (state: State, tx: Queryable) => Promise<void>;
  /** The version the caller saw (If-Match); a mismatch is an error, never retried. */
  expectedVersion?: number;
  /**
   * The error for an `expectedVersion` that is not the stream's (`actual` is null when a concurrent
   * append won the race); null lets the decider answer instead (an item that never existed is a 404,
   * not a version error). Default: 409 CONFLICT.
   */
  versionMismatch?: (actual: number | null, state: State) => Error | null;
  /** Seals the decided events before the append (see EventSealer). */
  seal?: EventSealer;
  /**
   * `load: 'head'` only. `heads`: this instance's cache of heads, told of the append (remembered once
   * an inSiteTransaction commits) and of a lost race (forgotten, so the retry reads the log). `head`:
   * the head the caller took from it, loaded instead of reading the stream; the append's version check
   * refuses it if the stream moved on since. `appendGuard`: a statement sent with the append (after
   * everything deferred before it) that refuses what the version check cannot see, raising SV409 (a
   * lost race, tried again from the log).
   */
  heads?: StreamHeads;
  head?: StoredEvent;
  appendGuard?: SqlQuery;
}

export interface CommandRequest<State, Command, Event extends NewEvent> extends CommandTarget<State, Command, Event> {
  /** The command, or a function of the loaded state. */
  command: Command | ((state: State) => Command);
}

export interface CommandResult<State> {
  state: State;
  /** The stream's version after the command (0 for `load: 'none'` with nothing appended). */
  version: number;
  events: StoredEvent[];
}

/**
 * A command opened on its stream: loaded under its lock, checked, its version compared. A workflow
 * that writes other streams first (a release's items, an erasure's records: each through that
 * stream's own command, in the same transaction) does so now, then decides the command with what it
 * did: nothing of the runtime calls back into the area (docs/architecture.md, "The path of a command").
 */
export interface OpenCommand<State, Command> {
  readonly state: State;
  readonly version: number;
  /** Decides `command` against the state, seals, appends (version-checked) and applies the inline projections. */
  decide(command: Command): Promise<CommandResult<State>>;
}

/** The stream's state as its decider folds it: only the events of the decider's own types reach `evolve`. */
async function loadState<State, Event extends NewEvent>(
  tx: Queryable,
  decider: Decider<State, never, Event>,
  stream: string,
  load: StateLoading,
  cachedHead: StoredEvent | undefined,
) {
  if (load === 'none') return { state: decider.initialState(), version: 0 };
  if (load === 'head') {
    const head = cachedHead ?? (await readStreamHead(tx, stream));
    if (!head) return { state: decider.initialState(), version: 0 };
    return { state: isEventOf(decider, head) ? decider.evolve(decider.initialState(), head) : decider.initialState(), version: head.streamPosition };
  }
  const history = await readStream(tx, stream);
  return {
    state: eventsOf(decider, history).reduce((current, event) => decider.evolve(current, event), decider.initialState()),
    version: history.at(-1)?.streamPosition ?? 0,
  };
}

/**
 * Opens a command inside the caller's transaction: takes the stream's lock (`lock`), loads its state,
 * runs `check`, compares `expectedVersion`. `decide` is the command's second half.
 */
export async function openCommandIn<State, Command, Event extends NewEvent>(
  tx: Queryable,
  projections: readonly Projection[],
  target: CommandTarget<State, Command, Event>,
): Promise<OpenCommand<State, Command>> {
  const { decider, streamId, expectedVersion, versionMismatch } = target;
  const load = target.load ?? 'fold';
  // Deferred: the lock travels with the load's statement, taken before it runs (one round trip, not two).
  if (target.lock) tx.defer(sql`SELECT pg_advisory_xact_lock(hashtextextended(${streamId}, 0))`);
  const cachedHead = load === 'head' ? target.head : undefined;
  const { state, version } = await loadState(tx, decider, streamId, load, cachedHead);
  /**
   * What is decided from a cached head without an append to check it (a decision that appends
   * nothing; a refusal of check, the decider or the seal and its before-write hooks) may be the stale
   * head's: the head is confirmed against the log first, and a stream that moved on is a lost race,
   * tried again from the log. A failed statement may have aborted the transaction: the retry asks.
   */
  const confirmCachedHead = async (): Promise<void> => {
    if (!cachedHead) return;
    const current = await readStreamHead(tx, streamId).catch(() => undefined);
    if (current?.eventId === cachedHead.eventId) return;
    target.heads?.forget(streamId);
    throw new StreamConflictError(`${streamId} moved on since its cached head; reload and retry`);
  };
  const refusedOnHead = async (error: unknown): Promise<never> => {
    if (!(error instanceof StreamConflictError)) await confirmCachedHead();
    throw error;
  };
  await Promise.resolve(target.check?.(state, tx)).catch(refusedOnHead);
  if (expectedVersion !== undefined && expectedVersion !== version) {
    const mismatch = versionMismatch ? versionMismatch(version, state) : new StreamConflictError(`${streamId} is at version ${version}, not ${expectedVersion}`);
    if (mismatch) throw mismatch;
  }
  let decided = false;
  return {
    state,
    version,
    async decide(command) {
      if (decided) throw new Error(`${streamId}: an opened command is decided once`);
      decided = true;
      let events: Event[];
      try {
        events = decider.decide(command, state);
      } catch (error) {
        return refusedOnHead(error);
      }
      if (events.length === 0) {
        // Nothing appended, so no version check.
        await confirmCachedHead();
        return { state, version, events: [] };
      }
      const newEvents = target.seal ? await target.seal(tx, events).catch(refusedOnHead) : events;
      const expected: ExpectedVersion = load === 'none' ? 'any' : version === 0 ? 'no_stream' : version;
      let appended;
      // A cached head must be the log's (svc_assert_stream_head.sql); the caller's guard follows.
      if (cachedHead) tx.defer(sql`SELECT svc_assert_stream_head(${streamId}, ${cachedHead.streamPosition}, ${cachedHead.eventId}::uuid)`);
      if (target.appendGuard) tx.defer(target.appendGuard);
      try {
        appended = await appendToStream(tx, { siteId: target.siteId, streamId, expectedVersion: expected, events: newEvents, metadata: target.metadata });
      } catch (error) {
        if (error instanceof StreamConflictError) target.heads?.forget(streamId);
        if (error instanceof StreamConflictError && expectedVersion !== undefined && versionMismatch) throw versionMismatch(null, state) ?? error;
        throw error;
      }
      const head = appended.events.at(-1);
      if (head && target.heads) target.heads.appended(tx, streamId, head);
      await applyInline(tx, projections, appended.events);
      const next = eventsOf(decider, appended.events).reduce((current, event) => decider.evolve(current, event), state);
      return { state: next, version: appended.nextVersion, events: appended.events };
    },
  };
}

/** Handles one command inside the caller's transaction (several commands may share it). */
export async function handleCommandIn<State, Command, Event extends NewEvent>(
  tx: Queryable,
  projections: readonly Projection[],
  request: CommandRequest<State, Command, Event>,
): Promise<CommandResult<State>> {
  const opened = await openCommandIn(tx, projections, request);
  const command = typeof request.command === 'function' ? (request.command as (current: State) => Command)(opened.state) : request.command;
  return opened.decide(command);
}

/** Runs `work` in one site transaction; a concurrent append that wins a stream retries it from the start. */
export async function inSiteTransaction<T>(
  context: Pick<CommandContext, 'database' | 'streamHeads'>,
  siteId: string,
  work: (tx: Queryable) => Promise<T>,
  retry: RetryPolicy = DEFAULT_RETRY,
): Promise<T> {
  const heads = context.streamHeads;
  for (let attempt = 1; ; attempt += 1) {
    try {
      let transaction: Queryable | undefined;
      const result = await context.database.withSite(siteId, (tx) => {
        transaction = tx;
        heads?.collect(tx);
        return work(tx);
      });
      // Committed: the heads its commands appended are the streams' heads now.
      if (transaction) heads?.committed(transaction);
      return result;
    } catch (error) {
      if (!(error instanceof StreamConflictError) || attempt >= retry.attempts) throw error;
    }
  }
}

/**
 * Handles one command in its own site transaction. A conflict is retried from a fresh read, unless
 * the caller named the version it saw: then it is the caller's to resolve.
 */
export async function handleCommand<State, Command, Event extends NewEvent>(
  context: CommandContext,
  request: CommandRequest<State, Command, Event>,
): Promise<CommandResult<State>> {
  const policy = request.expectedVersion === undefined ? (request.retry ?? DEFAULT_RETRY) : { attempts: 1 };
  return inSiteTransaction(context, request.siteId, (tx) => handleCommandIn(tx, context.projections, request), policy);
}
