// What a read model declares: the events it handles (one typed handler per event type), when it
// runs, the tables it owns, how it applies. The runtime (src/runtime/projectionRunner.ts) reads
// `eventTypes` and calls `apply` / `applyBatch`.
import type { EventType, StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';

/** Applies one event of one type: `event.data` is that type's data. */
export type EventHandler<Type extends EventType> = (tx: Queryable, event: StoredEvent<Type>) => Promise<void>;

/** One handler per event type a projection handles. */
export type EventHandlers = { [Type in EventType]?: EventHandler<Type> };

/** The event types named by a map of handlers. */
export type HandledType<Handlers extends EventHandlers> = keyof Handlers & EventType;

/**
 * A writer of a projection's table other than the projection itself, and why it may: maintenance
 * that no event describes (pruning, compaction, recording the state of DDL the projection asked for).
 */
export interface MaintenanceWriter {
  table: string;
  /** The file that writes (and the function, when the file has several). */
  writer: string;
  why: string;
}

export interface Projection {
  readonly name: string;
  /** inline: in the append's transaction (read-your-writes); async: by the projection daemon. */
  readonly mode: 'inline' | 'async';
  /** Event types handled, or '*' for every event. */
  readonly eventTypes: readonly EventType[] | '*';
  /** Tables the projection owns (it is their one writer); a rebuild empties them first, children before parents. */
  readonly tables: readonly string[];
  /** Writers of its tables besides the projection, each with its reason (projections/readModelOwners.ts). */
  readonly maintainers?: readonly MaintenanceWriter[];
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

interface Declaration {
  name: string;
  mode: 'inline' | 'async';
  tables: readonly string[];
  maintainers?: readonly MaintenanceWriter[];
  cost?: number;
}

/** A projection of some event types: a typed handler for each; `eventTypes` are the handlers' keys. */
export interface HandlersDeclaration<Handlers extends EventHandlers> extends Declaration {
  handlers: Handlers;
  /** Called with events of the handled types only, of one site, in log order. */
  applyBatch?(tx: Queryable, events: readonly StoredEvent<HandledType<NoInfer<Handlers>>>[]): Promise<void>;
}

/** A projection of every event of the log (the audit log). */
export interface EveryEventDeclaration extends Declaration {
  eventTypes: '*';
  apply(tx: Queryable, event: StoredEvent): Promise<void>;
  applyBatch?(tx: Queryable, events: readonly StoredEvent[]): Promise<void>;
}

export function handles(projection: Projection, type: string): boolean {
  return projection.eventTypes === '*' || (projection.eventTypes as readonly string[]).includes(type);
}

/** The handler of `type`, called with an event of that type (the map's key and the event's type agree). */
function applyWith<Type extends EventType>(handlers: EventHandlers, type: Type, event: StoredEvent<Type>, tx: Queryable): Promise<void> {
  const handler: EventHandler<Type> | undefined = handlers[type];
  return handler ? handler(tx, event) : Promise.resolve();
}

function isHandled<Handlers extends EventHandlers>(handlers: Handlers, event: StoredEvent): event is StoredEvent<HandledType<Handlers>> {
  return Object.hasOwn(handlers, event.type);
}

export function defineProjection<Handlers extends EventHandlers>(declaration: HandlersDeclaration<Handlers>): Projection;
export function defineProjection(declaration: EveryEventDeclaration): Projection;
export function defineProjection(declaration: HandlersDeclaration<EventHandlers> | EveryEventDeclaration): Projection {
  const { name, mode, tables, maintainers, cost } = declaration;
  if ('eventTypes' in declaration) {
    return { name, mode, tables, maintainers, cost, eventTypes: '*', apply: declaration.apply, applyBatch: declaration.applyBatch };
  }
  const { handlers, applyBatch } = declaration;
  return {
    name,
    mode,
    tables,
    maintainers,
    cost,
    eventTypes: Object.keys(handlers) as EventType[],
    apply: (tx, event) => applyWith(handlers, event.type, event, tx),
    // The runtime hands a projection only the events it handles; the filter keeps that a guarantee.
    applyBatch: applyBatch && ((tx, events) => applyBatch(tx, events.filter((event) => isHandled(handlers, event)))),
  };
}

/** The same handler for each of `types` (a projection that treats them alike). */
export function sameHandler<const Types extends readonly EventType[]>(
  types: Types,
  handler: EventHandler<NoInfer<Types[number]>>,
): { [Type in Types[number]]?: EventHandler<Type> } {
  const handlers: { [Type in Types[number]]?: EventHandler<Type> } = {};
  for (const type of types as readonly Types[number][]) handlers[type] = handler;
  return handlers;
}
