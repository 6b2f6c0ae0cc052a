// What every domain event and command result looks like before and after it is stored.
import type { EventDataOf, EventType } from './eventCatalogue.ts';

export type { EventDataOf, EventType } from './eventCatalogue.ts';
export type { EventOf } from './eventSchema.ts';

export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  /** Schema version of `data`; older versions are upcast when read. */
  schemaVersion?: number;
  eventId?: string;
}

export interface EventMetadata {
  /** `agent`: an automated agent acting on content (GET /me/automated-decisions lists its revisions). */
  actor: { kind: 'user' | 'apiKey' | 'system' | 'instance' | 'anonymous' | 'agent'; id: string | null; impersonatorId?: string };
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  /** Set on every write an agent makes (actor.kind 'agent'): for whom, under what, approved by whom. */
  agent?: AgentProvenance;
  /** Set on a write a git integration made, or that a request declared with X-Svc-Git-Commit (docs/integrations.md "Provenance"). */
  git?: GitProvenance;
}

/** Which commit (and pull request) a change came from. */
export interface GitProvenance {
  /** The site's git integration, when the change names one. */
  integrationId: string | null;
  commit: string;
  pullRequest: number | null;
}

/** What an agent's write records besides its actor (docs/ai.md). */
export interface AgentProvenance {
  /** The principal the agent acted for (a user id, `apikey:<id>`). */
  onBehalfOf: string;
  /** The person who approved the call (a dangerous skill), else null. */
  approvedBy: string | null;
  approvalId: string | null;
  /** The agent role it acted under, null for none. */
  role: string | null;
  /** The active constitution's version when it ran, null for none. */
  constitutionVersion: number | null;
}

/** A recorded event, as the log holds it: where it is, what it is, who caused it. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  position: number;
  txId: string;
  siteId: string;
  streamId: string;
  streamPosition: number;
  eventId: string;
  type: Type;
  schemaVersion: number;
  data: Data;
  metadata: EventMetadata;
  recordedAt: Date;
  hash: string;
  prevHash: string | null;
}

/**
 * A stored event of one of the given types (default: any), its `data` checked against the type's
 * schema and upcast to its latest version when it was read. A union over the types: testing
 * `event.type` narrows `event.data`.
 */
export type StoredEvent<Type extends EventType = EventType> = { [T in Type]: RecordedEvent<T, EventDataOf<T>> }[Type];

/**
 * A decider: the business rules of one aggregate as pure functions (Emmett's shape). `evolve` takes
 * the decider's own events, so testing `event.type` narrows `event.data`; stored events (whose type
 * is any of the catalogue's) reach it through `eventsOf` or `isEventOf`, which check their type
 * against `eventTypes`.
 */
export interface Decider<State, Command, Event extends NewEvent> {
  /** The types `evolve` folds (`eventTypesOf` the schemas of `Event`); a stream's other events are skipped. */
  eventTypes: readonly Event['type'][];
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

/** Whether an event (a stored one, say) is one the decider folds, narrowed to its type if so. */
export function isEventOf<State, Event extends NewEvent, Candidate extends { type: string }>(
  decider: Decider<State, never, Event>,
  event: Candidate,
): event is Candidate & Event {
  return decider.eventTypes.some((type) => type === event.type);
}

/** The events the decider folds, in their order (see isEventOf). */
export function eventsOf<State, Event extends NewEvent, Candidate extends { type: string }>(
  decider: Decider<State, never, Event>,
  events: readonly Candidate[],
): (Candidate & Event)[] {
  return events.filter((event): event is Candidate & Event => isEventOf(decider, event));
}

export function streamId(siteId: string, aggregate: string, ...id: string[]): string {
  return [siteId, aggregate, ...id].join('/');
}
