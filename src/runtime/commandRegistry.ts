// The command registry: every command by name (`<area>.<verb>`), with its input schema, who may run it
// and its handler. Routes, and later flows, AI skills, MCP tools and git sync, run commands through it
// and get the same validation, authorization, audit metadata and errors. Built at boot from each
// area's `commands.ts` (src/modules/commands.ts), held in the context (`context.commands`);
// docs/architecture.md, "The command registry".
//
// This file names neither the context nor `Access` (both name it): they are the registry's type
// parameters, fixed once in `appCommand.ts`.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, errors } from '../../domain/shared/appError.ts';
import type { EventMetadata } from '../../domain/shared/events.ts';
import { assertPrincipalMeets, type AccessLevel } from '../auth/accessLevels.ts';
import { actorOf, type Principal } from '../auth/principal.ts';

/** What the registry asks of a principal's access in a site: its capabilities (administrators hold all). */
export interface CommandAccess {
  hasCapability(name: string): boolean;
}

/** One run of a command, as its handler sees it. */
export interface CommandCall<TInput, TAccess> {
  siteId: string;
  principal: Principal;
  input: TInput;
  /** The event metadata of the command's writes: the acting principal and the request id. */
  metadata: EventMetadata;
  /** What the principal may do in the site (the caller's, e.g. a request's, or built once on first use). Row-level checks stay in the handlers. */
  access(): Promise<TAccess>;
  /** Where the call comes from: a request's IP and user agent (recorded on sessions it starts), null for other callers. */
  client: CommandClient;
}

/** The network identity of a command's caller, for what records it (a session's IP and user agent). */
export interface CommandClient {
  ip: string | null;
  userAgent: string | null;
}

export interface CommandDefinition<TContext, TAccess, TInput, TResult> {
  /** `<area>.<verb>`: `items.create`, `releases.publish`. */
  name: string;
  description: string;
  /** The input: a route's body with its path ids. Its JSON schema (`list()`) is derived from it. */
  input: z.ZodType<TInput>;
  /** Who may run it: a route access level (src/auth/accessLevels.ts). */
  access: AccessLevel;
  /** A capability the principal must hold as well (administrators hold all); 403 otherwise. */
  capability?: string;
  /** Deletes, publishes, erases, or changes access: a caller acting for someone confirms it first. */
  dangerous: boolean;
  /** Exposed to agents as a skill (the copilot, the agent API, MCP tools; docs/ai-skills.md). */
  skill?: boolean;
  /** A query: it writes nothing (a skill an agent of autonomy `read` may call). */
  readOnly?: boolean;
  /** Input errors are 422 `VALIDATION_FAILED` (the spec's rule for some areas, releases): as their routes answer. */
  unprocessableInput?: boolean;
  /** The code of input errors when the spec gives the area its own (cloud sync: 400 `VALIDATION_ERROR`); default `VALIDATION_FAILED`. */
  inputErrorCode?: 'VALIDATION_ERROR';
  /**
   * The key of the input that holds the route's whole body when the body is not an object of fields
   * (items: one item or an array of them): its errors are at `body`, not `body.<key>`.
   */
  bodyKey?: string;
  handler(context: TContext, call: CommandCall<TInput, TAccess>): Promise<TResult>;
}

/** A command of any input and result, as the registry holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommandDefinition = CommandDefinition<any, any, any, any>;

export interface CommandRunOptions {
  siteId: string;
  principal: Principal;
  /** Default: the principal as the actor, a new request id. */
  metadata?: EventMetadata;
  /** The caller's access of the principal in the site (a request's `request.access()`); default: built on first use. */
  access?: () => Promise<CommandAccess>;
  /** The caller's IP and user agent (a route passes the request's); default: both null. */
  client?: CommandClient;
}

/** A command as later consumers see it (AI skills, MCP tools). */
export interface CommandSummary {
  name: string;
  description: string;
  /** The input's JSON schema (z.toJSONSchema of the input, as the caller sends it). */
  inputSchema: Record<string, unknown>;
  access: AccessLevel;
  capability: string | null;
  dangerous: boolean;
  /** Exposed to agents as a skill. */
  skill: boolean;
  /** A query that writes nothing. */
  readOnly: boolean;
}

/** A command named by its name, or by its definition (which types the result). */
type CommandRef<TResult> = string | { name: string; handler(...args: never[]): Promise<TResult> };

export interface CommandRegistry {
  /** Looks the command up, validates the input, authorizes the principal, runs the handler: its result. */
  run<TResult = unknown>(command: CommandRef<TResult>, input: unknown, options: CommandRunOptions): Promise<TResult>;
  /**
   * `run` for input its route has already parsed with the very schema object of the command's input
   * (or the body part of it, `bodyKey`), so a large body is not parsed twice: authorizes and runs.
   */
  runValidated<TInput, TResult>(command: CommandDefinition<unknown, unknown, TInput, TResult>, input: TInput, options: CommandRunOptions): Promise<TResult>;
  list(): CommandSummary[];
  /** The registered definition of `name`, or null (the skill runner validates and authorizes a call before it runs it). */
  find(name: string): AnyCommandDefinition | null;
  /**
   * Adds the commands an area's runtime binds (their handlers close over it: object storage, an
   * outbound HTTP client), once that runtime has started (src/modules/index.ts). A name another area
   * or the boot list holds throws; the same area registering again replaces its earlier set (a second
   * server built on one context, as a test does, runs them with its own runtime).
   */
  register(area: string, definitions: readonly AnyCommandDefinition[]): void;
}

export interface CommandRegistryServices<TContext, TAccess extends CommandAccess> {
  /** The context handlers receive (a function: the registry is built inside it). */
  context(): TContext;
  /** What a principal may do in a site, when the caller does not hand it over. */
  accessFor(context: TContext, siteId: string, principal: Principal): Promise<TAccess>;
}

/** The registry of `definitions`; two commands of one name throw (at boot). */
export function createCommandRegistry<TContext, TAccess extends CommandAccess>(
  definitions: readonly CommandDefinition<TContext, TAccess, unknown, unknown>[],
  services: CommandRegistryServices<TContext, TAccess>,
): CommandRegistry {
  const byName = new Map<string, CommandDefinition<TContext, TAccess, unknown, unknown>>();
  /** Who registered each runtime-bound command (the boot list's own are absent). */
  const areaOf = new Map<string, string>();
  for (const definition of definitions) {
    if (byName.has(definition.name)) throw new Error(`Two commands are named "${definition.name}"`);
    byName.set(definition.name, definition);
  }

  function lookUp(command: CommandRef<unknown>) {
    const name = typeof command === 'string' ? command : command.name;
    const definition = byName.get(name);
    if (!definition) throw errors.notFound(`No command "${name}"`);
    return definition;
  }

  async function execute(definition: CommandDefinition<TContext, TAccess, unknown, unknown>, input: unknown, options: CommandRunOptions, validated: boolean) {
    // The order of a route: access level, then the input, then the capability, then the handler.
    assertPrincipalMeets(definition.access, options.principal);
    const parsed = validated ? input : parseCommandInput(definition, input);
    const context = services.context();
    let accessPromise: Promise<TAccess> | null = null;
    // A request's Access is the type accessFor builds (the context's TAccess).
    const access = (): Promise<TAccess> =>
      (accessPromise ??= options.access ? (options.access() as Promise<TAccess>) : services.accessFor(context, options.siteId, options.principal));
    if (definition.capability && !(await access()).hasCapability(definition.capability)) {
      throw errors.forbidden(`This needs the ${definition.capability} capability`);
    }
    const metadata = options.metadata ?? { actor: actorOf(options.principal), requestId: randomUUID() };
    const client = options.client ?? { ip: null, userAgent: null };
    return definition.handler(context, { siteId: options.siteId, principal: options.principal, input: parsed, metadata, access, client });
  }

  let summaries: CommandSummary[] | null = null;
  return {
    run: async (command, input, options) => (await execute(lookUp(command), input, options, false)) as never,
    runValidated: async (command, input, options) => (await execute(lookUp(command), input, options, true)) as never,
    list() {
      summaries ??= [...byName.values()].map((definition) => ({
        name: definition.name,
        description: definition.description,
        inputSchema: z.toJSONSchema(definition.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
        access: definition.access,
        capability: definition.capability ?? null,
        dangerous: definition.dangerous,
        skill: definition.skill === true,
        readOnly: definition.readOnly === true,
      }));
      return summaries;
    },
    find: (name) => byName.get(name) ?? null,
    register(area, added) {
      const names = new Set<string>();
      for (const definition of added) {
        const holder = byName.has(definition.name) ? (areaOf.get(definition.name) ?? 'boot') : null;
        if (names.has(definition.name) || (holder !== null && holder !== area)) throw new Error(`Two commands are named "${definition.name}"`);
        names.add(definition.name);
      }
      for (const [name, holder] of areaOf) {
        if (holder !== area) continue;
        byName.delete(name);
        areaOf.delete(name);
      }
      for (const definition of added) {
        byName.set(definition.name, definition);
        areaOf.set(definition.name, area);
      }
      summaries = null;
    },
  };
}

/** The input, parsed; its first issue as the route answers it: `VALIDATION_FAILED` at `body.<path>`. */
export function parseCommandInput(definition: AnyCommandDefinition, input: unknown): unknown {
  const result = definition.input.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const issuePath = issue.path.map((segment) => (/^\d+$/.test(String(segment)) ? Number(segment) : String(segment)));
  const inBody = definition.bodyKey !== undefined && issuePath[0] === definition.bodyKey ? issuePath.slice(1) : issuePath;
  const path = ['body', ...inBody];
  throw new AppError(definition.inputErrorCode ?? 'VALIDATION_FAILED', `${path.join('.')}: ${issue.message}`, { path, ...(definition.unprocessableInput ? { unprocessable: true } : {}) });
}
