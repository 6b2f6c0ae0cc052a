// The group-commit strategy of the command handler, for commands that start new streams (creates):
// starts of one site that arrive while its transactions are busy share one transaction, one append
// (svc_append_first_events) and one insert per inline read model. Each request stays all or nothing:
// a request whose claimed stream id was ever used is refused alone, and when the joint transaction
// fails each request runs again alone (./groupCommit.ts).
import type { AppError } from '../../domain/shared/appError.ts';
import type { EventMetadata, NewEvent } from '../../domain/shared/events.ts';
import { appendFirstEvents, startedStreams } from '../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { inSiteTransaction, type CommandContext, type EventSealer } from './commandHandler.ts';
import { createGroupCommit, type GroupCommit, type WriteOutcome } from './groupCommit.ts';
import { applyInline } from './projectionRunner.ts';

export interface StreamStart {
  streamId: string;
  /** The stream's first event, as its decider decided it from the initial state. */
  event: NewEvent;
  /**
   * The id came from the client (or is fixed, like a singleton's): check that no stream of that id
   * ever existed. A fresh time-ordered UUID needs no check.
   */
  claimed: boolean;
  /** The answer when a claimed id is taken. */
  taken: () => AppError;
}

export interface StreamStartRequest {
  metadata: EventMetadata;
  streams: StreamStart[];
  /** Seals the streams' first events before the append, in the joint transaction (see EventSealer). */
  seal?: EventSealer;
  /** A check made once for all the joint transaction's requests that carry the same `run` (see JointCheck). */
  check?: JointCheck;
}

/**
 * A check of the requests of one joint transaction made in one call for all of them (one lookup, not
 * one per request), before their seals: `run` gets the `data` of every accepted request whose check
 * has this `run`. Throwing fails the joint transaction; each request is then run alone (groupCommit.ts)
 * and gets its own answer.
 */
export interface JointCheck<T = unknown> {
  run(tx: Queryable, data: readonly T[]): Promise<void>;
  data: T;
}

export type StreamStarts = GroupCommit<StreamStartRequest, void>;

export function createStreamStarts(context: CommandContext): StreamStarts {
  return createGroupCommit<StreamStartRequest, void>((siteId, requests) => startJointly(context, siteId, requests), {
    weigh: (request) => request.streams.length,
    maxWeight: 500,
    soloWeight: 100,
  });
}

async function startJointly(
  context: CommandContext,
  siteId: string,
  requests: StreamStartRequest[],
): Promise<WriteOutcome<void>[]> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const claimed = requests.flatMap((request) => request.streams.filter((stream) => stream.claimed).map((stream) => stream.streamId));
    // Taken: by a stream that exists or existed, or by an earlier request of this transaction.
    const taken = claimed.length > 0 ? await startedStreams(tx, claimed) : new Set<string>();
    const outcomes = requests.map((request): WriteOutcome<void> => {
      const mine = request.streams.filter((stream) => stream.claimed);
      const clash = mine.find((stream) => taken.has(stream.streamId));
      if (clash) return { ok: false, error: clash.taken() };
      for (const stream of mine) taken.add(stream.streamId);
      return { ok: true, value: undefined };
    });
    const accepted = requests.filter((_, index) => outcomes[index]!.ok);
    if (accepted.length === 0) return outcomes;
    const checks = new Map<JointCheck['run'], unknown[]>();
    for (const { check } of accepted) if (check) checks.set(check.run, [...(checks.get(check.run) ?? []), check.data]);
    for (const [run, data] of checks) await run(tx, data);
    const starts = [];
    for (const request of accepted) {
      const decided = request.streams.map((stream) => stream.event);
      const sealed = request.seal ? await request.seal(tx, decided) : decided;
      starts.push(...request.streams.map((stream, index) => ({ streamId: stream.streamId, event: sealed[index]!, metadata: request.metadata })));
    }
    const events = await appendFirstEvents(tx, {
      siteId,
      events: starts,
      metadata: accepted[0]!.metadata,
    });
    await applyInline(tx, context.projections, events);
    return outcomes;
  });
}
