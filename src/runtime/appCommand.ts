// The service's commands: the registry's definitions over the AppContext and a request's Access, and
// the registry built from them at boot (src/runtime/commandRegistry.ts; docs/architecture.md).
import type { z } from 'zod';
import { accessFor, type Access } from '../access/access.ts';
import { createCommandRegistry, type CommandCall, type CommandDefinition, type CommandRegistry } from './commandRegistry.ts';
import type { AppContext } from './context.ts';

export type AppCommand<TInput, TResult> = CommandDefinition<AppContext, Access, TInput, TResult>;
export type AppCommandCall<TInput> = CommandCall<TInput, Access>;
/** A command of any input, as an area's list and the registry hold it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAppCommand = AppCommand<any, unknown>;

/** A command whose handler's input is typed by its schema's output. */
export function defineCommand<TSchema extends z.ZodType, TResult>(
  definition: Omit<AppCommand<z.output<TSchema>, TResult>, 'input' | 'handler'> & {
    input: TSchema;
    handler(context: AppContext, call: AppCommandCall<z.output<TSchema>>): Promise<TResult>;
  },
): AppCommand<z.output<TSchema>, TResult> {
  return definition as AppCommand<z.output<TSchema>, TResult>;
}

/** The registry of the areas' commands (`context` is called on each run: the registry is built inside the context). */
export function createAppCommandRegistry(definitions: readonly AnyAppCommand[], context: () => AppContext): CommandRegistry {
  return createCommandRegistry(definitions as readonly CommandDefinition<AppContext, Access, unknown, unknown>[], { context, accessFor });
}
