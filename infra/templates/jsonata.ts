// JSONata over JSON data (the flows' transform operation, /utils/jsonata/test), bounded with jsonata
// 2.x's own evaluation guardrails: a time limit (D1012), a depth of nested evaluation (D1011: runaway
// recursion) and a longest sequence (D2015: `[1..10000000]`). The data's top-level keys that start with
// `$` are variables as well (`$trigger.item.title`). Compiled expressions are cached (bounded).
import jsonata from 'jsonata';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/shared/appError.ts';

/** The most an expression may hold, in characters. */
export const MAX_EXPRESSION_LENGTH = 50_000;
const EVALUATION_LIMIT_MS = 1_000;
/** Nested evaluation steps: deep enough for any written expression, shallow enough to stop a runaway recursion at once. */
const MAX_DEPTH = 500;
const MAX_SEQUENCE = 100_000;
/** The most a result may weigh as JSON. */
const MAX_RESULT_BYTES = 1024 * 1024;

type ErrorPath = (string | number)[];
type Expression = ReturnType<typeof jsonata>;

const compiled = new LRUCache<string, Expression>({ max: 200 });

/** What jsonata throws: an object with a code and the position in the expression where it failed. */
interface JsonataFailure {
  code?: unknown;
  position?: unknown;
  message?: unknown;
}

function expressionError(error: unknown, path: ErrorPath): AppError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as JsonataFailure;
  const code = typeof failure.code === 'string' ? failure.code : null;
  const text = typeof failure.message === 'string' ? failure.message.split('\n')[0]!.slice(0, 300) : 'the expression does not evaluate';
  const position = typeof failure.position === 'number' ? failure.position : null;
  return new AppError('VALIDATION_FAILED', `JSONata error${code ? ` ${code}` : ''}: ${text}`, { path, extensions: { position, code } });
}

/** The compiled expression; one that does not parse is 400 `VALIDATION_FAILED` at `path` with `extensions.position`. */
export function compileJsonata(expression: string, path: ErrorPath): Expression {
  const cached = compiled.get(expression);
  if (cached) return cached;
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `An expression holds at most ${MAX_EXPRESSION_LENGTH} characters`, { path, extensions: { position: null, code: null } });
  }
  try {
    const parsed = jsonata(expression, { timeout: EVALUATION_LIMIT_MS, stack: MAX_DEPTH, sequence: MAX_SEQUENCE });
    compiled.set(expression, parsed);
    return parsed;
  } catch (error) {
    throw expressionError(error, path);
  }
}

/** `$name` keys of the data, bound as the variables `$name`. */
function variablesOf(data: unknown): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  return Object.fromEntries(Object.entries(data).filter(([key]) => /^\$[A-Za-z_]\w*$/.test(key)).map(([key, value]) => [key.slice(1), value]));
}

/**
 * The expression's value over `data`, as JSON (nothing is null). A parse or evaluation error, a limit
 * reached, a function for a result or a result over 1 MiB is 400 `VALIDATION_FAILED` at `path`.
 */
export async function evaluateJsonata(expression: string, data: unknown, path: ErrorPath): Promise<unknown> {
  const compiledExpression = compileJsonata(expression, path);
  let result: unknown;
  try {
    result = await compiledExpression.evaluate(data, variablesOf(data));
  } catch (error) {
    throw expressionError(error, path);
  }
  return jsonResult(result, path);
}

/** A result as plain JSON: jsonata's sequences become arrays; a function (a lambda) is refused. */
function jsonResult(result: unknown, path: ErrorPath): unknown {
  if (result === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(result, (_key, value: unknown) => {
      if (typeof value === 'function' || (typeof value === 'object' && value !== null && ('_jsonata_lambda' in value || '_jsonata_function' in value))) {
        throw new AppError('VALIDATION_FAILED', 'The expression gives a function, not a value', { path, extensions: { position: null, code: null } });
      }
      return value;
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('VALIDATION_FAILED', 'The result is not JSON (nested too deeply)', { path, extensions: { position: null, code: null } });
  }
  if (text === undefined) return null;
  if (Buffer.byteLength(text) > MAX_RESULT_BYTES) {
    throw new AppError('VALIDATION_FAILED', 'The result is larger than 1 MiB of JSON', { path, extensions: { position: null, code: null } });
  }
  return JSON.parse(text) as unknown;
}
