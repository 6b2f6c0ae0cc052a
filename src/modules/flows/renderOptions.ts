// A node's options rendered over the run data before its operation runs (docs/flows.md "Data"): every
// string, at any depth of arrays and objects, is a template of the plain sandboxed LiquidJS engine
// (infra/templates/liquid.ts, the one /utils/render-template uses), except under the top-level keys
// the operation takes raw (a JSONata expression, a filter). A string that is exactly one
// `{{ expression }}`, nothing around it, keeps the expression's JSON value: `{{ $trigger.itemId }}`
// stays a number, `{{ $last }}` an object (null when it names nothing). Any other string renders to text.
import { AppError } from '../../../domain/shared/appError.ts';
import { evaluateDataTemplate, isTemplate } from '../../../infra/templates/liquid.ts';
import type { FlowRunData } from './operation.ts';

/** Options nest at most this deep (arrays and objects); deeper is refused before anything renders. */
export const MAX_OPTIONS_DEPTH = 32;

type ErrorPath = (string | number)[];

/** The rendered options; a template error or options nested too deeply is 400 `VALIDATION_FAILED` at `options.<path>`. */
export async function renderOptions(options: Record<string, unknown>, data: FlowRunData, raw: readonly string[] = []): Promise<Record<string, unknown>> {
  const scope = { ...data };
  const rendered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    rendered[key] = raw.includes(key) ? value : await renderValue(value, scope, ['options', key], 1);
  }
  return rendered;
}

async function renderValue(value: unknown, scope: Record<string, unknown>, path: ErrorPath, depth: number): Promise<unknown> {
  if (typeof value === 'string') return isTemplate(value) ? evaluateDataTemplate(value, scope, path) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_OPTIONS_DEPTH) throw new AppError('VALIDATION_FAILED', `Options nest deeper than ${MAX_OPTIONS_DEPTH} levels`, { path });
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const [index, item] of value.entries()) items.push(await renderValue(item, scope, [...path, index], depth + 1));
    return items;
  }
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) entries.push([key, await renderValue(item, scope, [...path, key], depth + 1)]);
  return Object.fromEntries(entries);
}
