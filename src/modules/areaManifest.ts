// An area's one runtime registration: what it plugs into the service (routes, read models, reactors,
// scheduled tasks, background parts). Every area has one manifest, listed in ./index.ts; nothing
// else starts an area's loops, timers, queues or reactors (test/architecture.unit.spec.ts checks it).
import type { FastifyInstance } from 'fastify';
import type { Projection } from '../../projections/projection.ts';
import type { AnyAppCommand } from '../runtime/appCommand.ts';
import type { AppContext } from '../runtime/context.ts';
import type { ItemWriteHook } from '../runtime/itemHooks.ts';
import type { ServerDeps } from '../server/serverDeps.ts';

/** A periodic task, run by the one scheduler (src/boot/scheduler.ts) on one instance at a time. */
export interface ScheduledTask {
  /** Unique; its lock is `scheduler:<name>` (src/runtime/leaderElection.ts). */
  name: string;
  /** `signal` aborts when the service stops: a long task should return at the next safe point. */
  run(context: AppContext, now: Date, signal: AbortSignal): Promise<void>;
}

/**
 * A reactor: consumes committed events or a read model and acts on them (sends, publishes, builds).
 * Each keeps its cursor with its effect (same transaction, or idempotent by event id) and runs with
 * one leader (src/runtime/leaderElection.ts) or through a job queue keyed per unit of work.
 */
export interface ReactorDeclaration {
  name: string;
  /** What it follows and where its cursor lives. */
  cursor: string;
  /** How instances share it: the leader lock it takes, or the queue that keys its jobs. */
  leader: string;
}

/**
 * The area's background parts on one server (queues, reactors, caches fed by notifications):
 * started once before any route is registered, in manifest order, and stopped with the context
 * (`context.onClose`, so in reverse order, after the routes' own resources).
 */
export interface AreaRuntime<Runtime> {
  start(context: AppContext): Runtime | Promise<Runtime>;
  stop(runtime: Runtime): Promise<void>;
}

/** The runtimes the server started, for the routes of an area and of the areas it serves. */
export interface StartedRuntimes {
  of<Runtime>(area: AreaManifest<Runtime>): Runtime;
}

interface RoutesPlugin<Runtime> {
  register(app: FastifyInstance, deps: ServerDeps, runtime: Runtime, runtimes: StartedRuntimes): Promise<void>;
}

/**
 * A Fastify plugin of the area, given the area's runtime. (Typed as a method so that every area's
 * manifest, whatever its runtime, fits the one list of areas.)
 */
export type AreaRoutes<Runtime> = RoutesPlugin<Runtime>['register'];

export interface AreaManifest<Runtime = undefined> {
  name: string;
  /** Fastify plugins, registered in this order under /api/v1, each in a scope of its own. */
  routes: readonly AreaRoutes<Runtime>[];
  /** The read models it owns (registered in projections/index.ts, which fixes their order). */
  projections?: readonly Projection[];
  /** Its reactors, started by its runtime (or the runtime's core, as the field index builder). */
  reactors?: readonly ReactorDeclaration[];
  scheduledTasks?: readonly ScheduledTask[];
  /**
   * What it asks of item writes (docs/architecture.md, "Item-write hooks"): each builds its hook for
   * a context, registered on `context.itemHooks` when the context is built (src/boot/boot.ts), so that
   * every writer (the server, the CLI, a benchmark) runs them.
   */
  itemHooks?: readonly ((context: AppContext) => ItemWriteHook)[];
  runtime?: AreaRuntime<Runtime>;
  /**
   * The commands that need the runtime (docs/architecture.md, "The command registry"): their handlers
   * close over it. Registered on `context.commands` once the runtime has started, before any route.
   */
  commands?(runtime: Runtime): readonly AnyAppCommand[];
}

/** Declares an area; the type parameter is inferred from its runtime. */
export function defineArea<Runtime = undefined>(manifest: AreaManifest<Runtime>): AreaManifest<Runtime> {
  return manifest;
}
