// The write path: load a stream's state, decide, append with the expected version, project inline,
// all in one transaction. Without an explicit expected version a conflict is retried from a fresh read.
import type { Decider, EventMetadata, NewEvent, StoredEvent } from '../../domain/shared/events.ts';
import { appendToStream, readStream, StreamConflictError } from '../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import type { Projection } from '../../projections/projection.ts';
import { applyInline } from './projectionRunner.ts';
import type { AppContext } from './context.ts';

export interface CommandRequest<State, Command, Event extends NewEvent> {
  siteId: string;
  streamId: string;
  decider: Decider<State, Command, Event>;
  command: Command | ((state: State) => Command);
  metadata: EventMetadata;
  /** The version the caller saw (If-Match); a mismatch is a 409/412 instead of a retry. */
  expectedVersion?: number;
}

export interface CommandResult<State> {
  state: State;
  version: number;
  events: StoredEvent[];
}

const MAX_ATTEMPTS = 5;

/** Handles one command inside an existing transaction (several streams may share it). */
export async function handleCommandIn<State, Command, Event extends NewEvent>(
  tx: Queryable,
  projections: readonly Projection[],
  request: CommandRequest<State, Command, Event>,
): Promise<CommandResult<State>> {
  const history = await readStream(tx, request.streamId);
  const { decider } = request;
  let state = history.reduce((current, event) => decider.evolve(current, event), decider.initialState());
  const version = history.at(-1)?.streamPosition ?? 0;
  if (request.expectedVersion !== undefined && request.expectedVersion !== version) {
    throw new StreamConflictError(`${request.streamId} is at version ${version}, not ${request.expectedVersion}`);
  }
  const command = typeof request.command === 'function' ? (request.command as (s: State) => Command)(state) : request.command;
  const newEvents = decider.decide(command, state);
  if (newEvents.length === 0) return { state, version, events: [] };
  const appended = await appendToStream(tx, {
    siteId: request.siteId,
    streamId: request.streamId,
    expectedVersion: version === 0 ? 'no_stream' : version,
    events: newEvents,
    metadata: request.metadata,
  });
  await applyInline(tx, projections, appended.events);
  state = appended.events.reduce((current, event) => decider.evolve(current, event), state);
  return { state, version: appended.nextVersion, events: appended.events };
}

/** Handles one command in its own site transaction, retrying on a concurrent change when allowed. */
export async function handleCommand<State, Command, Event extends NewEvent>(
  context: Pick<AppContext, 'database' | 'projections'>,
  request: CommandRequest<State, Command, Event>,
): Promise<CommandResult<State>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await context.database.withSite(request.siteId, (tx) => handleCommandIn(tx, context.projections, request));
    } catch (error) {
      const retriable = error instanceof StreamConflictError && request.expectedVersion === undefined && attempt < MAX_ATTEMPTS;
      if (!retriable) throw error;
    }
  }
}

/** Runs several commands (possibly on several streams) in one site transaction, retrying as above. */
export async function inSiteTransaction<T>(
  context: Pick<AppContext, 'database'>,
  siteId: string,
  work: (tx: Queryable) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await context.database.withSite(siteId, work);
    } catch (error) {
      if (!(error instanceof StreamConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
