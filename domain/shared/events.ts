// What every domain event and command result looks like before and after it is stored.
export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  /** Schema version of `data`; older versions are upcast when read. */
  schemaVersion?: number;
  eventId?: string;
}

export interface EventMetadata {
  actor: { kind: 'user' | 'apiKey' | 'system' | 'instance' | 'anonymous'; id: string | null; impersonatorId?: string };
  requestId?: string;
  correlationId?: string;
  causationId?: string;
}

export interface StoredEvent<Data = Record<string, unknown>> {
  position: number;
  txId: string;
  siteId: string;
  streamId: string;
  streamPosition: number;
  eventId: string;
  type: string;
  schemaVersion: number;
  data: Data;
  metadata: EventMetadata;
  recordedAt: Date;
  hash: string;
  prevHash: string | null;
}

/** A decider: the business rules of one aggregate as pure functions (Emmett's shape). */
export interface Decider<State, Command, Event extends NewEvent> {
  initialState(): State;
  evolve(state: State, event: { type: string; data: unknown }): State;
  decide(command: Command, state: State): Event[];
}

export function streamId(siteId: string, aggregate: string, ...id: string[]): string {
  return [siteId, aggregate, ...id].join('/');
}
