// Option shapes several operations share, and what they do with the rendered values. A string option
// may be a template; one that is exactly `{{ expression }}` renders to the expression's JSON value
// (src/modules/flows/renderOptions.ts), so an object option may also be written as such a template.
import { setTimeout as wait } from 'node:timers/promises';
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import type { CommandRunOptions } from '../../../runtime/commandRegistry.ts';
import type { OperationCall } from '../operation.ts';

/** A string that is one `{{ expression }}` (whose value the runtime puts in its place). */
const SOLE_EXPRESSION = /^\{\{-?[\s\S]*-?\}\}$/;

export const collectionOption = z.string().min(1).max(200).describe('The collection (a template may name it).');

/** An item id: text, or a number that an expression (`{{ $trigger.itemId }}`) gave. */
export const itemIdOption = z.union([z.string().min(1).max(200), z.number()]).describe('The item id.');

/** A JSON object, or one `{{ expression }}` that gives one when the node runs. */
export function objectOption(description: string) {
  return z
    .union([z.record(z.string(), z.unknown()), z.string().regex(SOLE_EXPRESSION, 'must be an object, or one {{ expression }} that gives an object')])
    .describe(description);
}

/** The object a rendered `objectOption` holds; anything else fails the node. */
export function renderedObject(value: unknown, option: string): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new AppError('VALIDATION_FAILED', `"${option}" did not render to an object`, { path: ['options', option] });
}

/** How a flow runs a command: in its site, as its principal, with the run as the writes' causation. */
export function commandRun(call: OperationCall): CommandRunOptions {
  return { siteId: call.siteId, principal: call.principal, metadata: call.metadata };
}

function stopped(): AppError {
  return new AppError('REQUEST_TIMEOUT', 'The run was stopped (its time ran out) before the operation finished');
}

/** `start()`'s result, or a failure as soon as the run's signal aborts (the work itself is left to its own limits); nothing starts once it has. */
export async function untilAborted<T>(start: () => Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw stopped();
  const work = start();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/** Waits `ms`, failing when the run's signal aborts first. */
export async function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw stopped();
    throw error;
  }
}
