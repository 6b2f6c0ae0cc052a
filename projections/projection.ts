// What a read model declares: the events it handles, when it runs, the tables it owns, how it applies.
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';

export interface Projection {
  readonly name: string;
  /** inline: in the append's transaction (read-your-writes); async: by the projection daemon. */
  readonly mode: 'inline' | 'async';
  /** Event types handled, or '*' for every event. */
  readonly eventTypes: readonly string[] | '*';
  /** Tables the projection owns; a rebuild empties them first, children before parents. */
  readonly tables: readonly string[];
  apply(tx: Queryable, event: StoredEvent): Promise<void>;
  /**
   * Optional: applies several events of one site in one go (bulk writes). Must leave exactly the rows
   * `apply` would leave when called on each event in order.
   */
  applyBatch?(tx: Queryable, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Async only: what applying a batch costs relative to the other async projections (default 1).
   * The daemon balances its concurrent lanes by it (src/runtime/projectionLanes.ts).
   */
  readonly cost?: number;
}

export function handles(projection: Projection, type: string): boolean {
  return projection.eventTypes === '*' || projection.eventTypes.includes(type);
}

export function defineProjection(projection: Projection): Projection {
  return projection;
}
