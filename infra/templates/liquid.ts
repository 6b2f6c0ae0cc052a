// The service's sandboxed LiquidJS engines (email templates, flow options, /utils/render-template). No
// tag reads a file (the engines' template store is empty, so include, render and layout find nothing),
// no filter runs code, and parsing and rendering are bounded. `html` escapes every output; `plain` does
// not. Parsed sources are cached (bounded): a marketing send renders one template for thousands of
// recipients, a flow renders the same options on every run.
import { Liquid, TokenKind, Tokenizer, type Template, type TopLevelToken } from 'liquidjs';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/shared/appError.ts';

/** The most source a template may hold, in characters. */
export const MAX_SOURCE_LENGTH = 200_000;
const RENDER_LIMIT_MS = 1_000;
const MEMORY_LIMIT = 10_000_000;

export type LiquidKind = 'html' | 'plain';
type ErrorPath = (string | number)[];

/** Tags that would read another template: refused where they are parsed, in a branch no render takes too. */
const FILE_TAGS = ['include', 'render', 'layout'];

function engine(escapeHtml: boolean): Liquid {
  const liquid = new Liquid({
    ...(escapeHtml ? { outputEscape: 'escape' as const } : {}),
    templates: {},
    strictFilters: true,
    ownPropertyOnly: true,
    // Twice the source: email layouts grow when their {{content}} marker is rewritten.
    parseLimit: MAX_SOURCE_LENGTH * 2,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  for (const name of FILE_TAGS) {
    liquid.registerTag(name, {
      parse() {
        throw new Error(`{% ${name} %} is not available: templates read no other template`);
      },
      *render() {},
    });
  }
  return liquid;
}

const engines: Record<LiquidKind, Liquid> = { html: engine(true), plain: engine(false) };

const parsed = new LRUCache<string, Template[]>({ max: 500 });

function templateError(error: unknown, path: ErrorPath): AppError {
  const message = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : 'the template does not render';
  return new AppError('VALIDATION_FAILED', `Template error: ${message}`, { path });
}

/** The parsed source (cached); a source that does not parse is 400 `VALIDATION_FAILED` at `path`. */
export function parseLiquid(kind: LiquidKind, source: string, path: ErrorPath): Template[] {
  const cacheKey = `${kind}\u0000${source}`;
  const cached = parsed.get(cacheKey);
  if (cached) return cached;
  try {
    const templates = engines[kind].parse(source);
    parsed.set(cacheKey, templates);
    return templates;
  } catch (error) {
    throw templateError(error, path);
  }
}

/** Renders `source` with `scope`; a parse or render failure (a limit included) is 400 `VALIDATION_FAILED` at `path`. */
export async function renderLiquid(kind: LiquidKind, source: string, scope: Record<string, unknown>, path: ErrorPath): Promise<string> {
  const templates = parseLiquid(kind, source, path);
  let output: string;
  try {
    output = String(await engines[kind].render(templates, scope));
  } catch (error) {
    throw templateError(error, path);
  }
  // LiquidJS bounds what filters and ranges allocate, not the text a loop writes: the output is bounded here.
  if (output.length > MEMORY_LIMIT) throw new AppError('VALIDATION_FAILED', `Template error: the output is larger than ${MEMORY_LIMIT / 1_000_000} MB`, { path });
  return output;
}

// Data templates: the plain engine over a JSON object whose top-level keys may start with `$` (a flow's
// `$trigger`, `$last`, `$steps`…). Liquid names cannot start with `$`, so such a name is written in
// the scope, and in the tags of the source, with a fullwidth dollar sign (U+FF04), which Liquid reads
// as a letter. Text outside tags, quoted strings and properties (`a.$b`, reached as `a["$b"]`) are
// left as they are.
const NAME_DOLLAR = '\uFF04';
const TOP_LEVEL_DOLLAR = /("[^"]*"|'[^']*')|(?<![\w.$\-\uFF04])\$(?=[A-Za-z_])/g;

function renameInTag(content: string): string {
  return content.replace(TOP_LEVEL_DOLLAR, (match, quoted: string | undefined) => quoted ?? NAME_DOLLAR);
}

/** The range inside the delimiters of an output (`{{ }}`) or a tag (`{% %}`); null for text. */
function delimitedContent(token: TopLevelToken | undefined): [number, number] | null {
  if (!token || (token.kind !== TokenKind.Output && token.kind !== TokenKind.Tag)) return null;
  return (token as { contentRange: [number, number] }).contentRange;
}

function withDollarNames(source: string): string {
  if (!source.includes('$')) return source;
  let tokens: TopLevelToken[];
  try {
    tokens = new Tokenizer(source, engines.plain.options.operators).readTopLevelTokens(engines.plain.options);
  } catch {
    return source; // parsing the source as it is reports the error
  }
  let result = '';
  let at = 0;
  for (const token of tokens) {
    const content = delimitedContent(token);
    if (!content) continue;
    const [begin, end] = content;
    result += source.slice(at, begin) + renameInTag(source.slice(begin, end));
    at = end;
  }
  return result + source.slice(at);
}

function dataScope(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key.startsWith('$') ? NAME_DOLLAR + key.slice(1) : key, value]));
}

/** Whether `source` is a template at all: a string without `{{` or `{%` renders to itself. */
export function isTemplate(source: string): boolean {
  return source.includes('{{') || source.includes('{%');
}

/** A data template rendered to text with the plain engine (`{{ $trigger.collection }}`). */
export async function renderDataTemplate(source: string, data: Record<string, unknown>, path: ErrorPath): Promise<string> {
  return renderLiquid('plain', withDollarNames(source), dataScope(data), path);
}

/**
 * A data template's value: a source that is exactly one output, `{{ expression }}` with nothing around
 * it, gives the expression's value as it is (a number, an object, an array, true; null for nothing),
 * a copy of it; any other source gives its rendered text.
 */
export async function evaluateDataTemplate(source: string, data: Record<string, unknown>, path: ErrorPath): Promise<unknown> {
  const rewritten = withDollarNames(source);
  const templates = parseLiquid('plain', rewritten, path);
  // A parsed output's token is the OutputToken its source was read from.
  const token = templates.length === 1 ? (templates[0]!.token as TopLevelToken) : undefined;
  const content = token?.kind === TokenKind.Output && token.begin === 0 && token.end === rewritten.length ? delimitedContent(token) : null;
  if (!content) return renderLiquid('plain', rewritten, dataScope(data), path);
  let value: unknown;
  try {
    value = await engines.plain.evalValue(rewritten.slice(...content), dataScope(data));
  } catch (error) {
    throw templateError(error, path);
  }
  if (value === undefined || value === null) return null;
  return typeof value === 'object' ? structuredClone(value) : value;
}
