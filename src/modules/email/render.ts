// Rendering of a site's email (docs/email.md "Rendering"): one sandboxed LiquidJS engine. No tag reads
// a file (the engine's template store is empty, so include, render and layout find nothing), no filter
// runs code, and parsing and rendering are bounded. The HTML part escapes every output; the subject
// and the text part are plain. Parsed sources are cached (bounded): a marketing send renders one
// template for thousands of recipients.
import { convert } from 'html-to-text';
import { Liquid, type Template } from 'liquidjs';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../../domain/shared/appError.ts';

/** The most source a template part or a layout may hold, in characters. */
export const MAX_SOURCE_LENGTH = 200_000;
const RENDER_LIMIT_MS = 1_000;
const MEMORY_LIMIT = 10_000_000;
const SUBJECT_MAX = 998;

/** `{{content}}` in a layout, spaces allowed inside the braces. */
const CONTENT_MARKER = /\{\{\s*content\s*\}\}/g;
/** The name the rendered body takes in a layout's scope: a hyphen keeps it apart from any variable a template declares. */
const LAYOUT_CONTENT = 'svc-layout-content';

function engine(escapeHtml: boolean): Liquid {
  return new Liquid({
    ...(escapeHtml ? { outputEscape: 'escape' as const } : {}),
    templates: {},
    strictFilters: true,
    ownPropertyOnly: true,
    parseLimit: MAX_SOURCE_LENGTH * 2,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
}

const engines = { html: engine(true), plain: engine(false) };
type EngineName = keyof typeof engines;

const parsed = new LRUCache<string, Template[]>({ max: 500 });

function parse(kind: EngineName, source: string, path: (string | number)[]): Template[] {
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

function templateError(error: unknown, path: (string | number)[]): AppError {
  const message = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : 'the template does not render';
  return new AppError('VALIDATION_FAILED', `Template error: ${message}`, { path });
}

async function render(kind: EngineName, source: string, scope: Record<string, unknown>, path: (string | number)[]): Promise<string> {
  const templates = parse(kind, source, path);
  try {
    return String(await engines[kind].render(templates, scope));
  } catch (error) {
    throw templateError(error, path);
  }
}

export interface TemplateSource {
  subject: string;
  html: string | null;
  text: string | null;
}

export interface RenderedEmail {
  subject: string;
  html: string | null;
  text: string;
}

/** Refuses a layout without exactly one `{{content}}`, or one that does not parse (400 at `path`). */
export function checkLayoutSource(html: string, path: (string | number)[]): void {
  const markers = html.match(CONTENT_MARKER)?.length ?? 0;
  if (markers !== 1) {
    throw new AppError('VALIDATION_FAILED', markers === 0 ? 'A layout must contain {{content}}' : 'A layout must contain {{content}} exactly once', { path });
  }
  parse('html', layoutSource(html), path);
}

function layoutSource(html: string): string {
  return html.replace(CONTENT_MARKER, `{{ ${LAYOUT_CONTENT} | raw }}`);
}

/**
 * Renders a message: the subject and text plain, the HTML escaped and wrapped in the layout; the text
 * derived from the HTML when the template has none. Errors are 400 at `body.<part>` (the template's
 * fields on a save, `paths` on a send).
 */
export async function renderEmail(
  template: TemplateSource,
  layoutHtml: string | null,
  variables: Record<string, unknown>,
  pathOf: (part: 'subject' | 'html' | 'text' | 'layout') => (string | number)[] = (part) => ['body', part],
): Promise<RenderedEmail> {
  const subject = (await render('plain', template.subject, variables, pathOf('subject'))).replace(/[\r\n]+/g, ' ').trim().slice(0, SUBJECT_MAX);
  let html: string | null = null;
  if (template.html !== null) {
    const body = await render('html', template.html, variables, pathOf('html'));
    html = layoutHtml === null ? body : await render('html', layoutSource(layoutHtml), { ...variables, [LAYOUT_CONTENT]: body }, pathOf('layout'));
  }
  const text = template.text !== null ? await render('plain', template.text, variables, pathOf('text')) : convert(html ?? '', { wordwrap: 78 });
  return { subject, html, text };
}

/**
 * What a save checks: every part parses, and renders with no variables (a tag that reads a template
 * file, an unbounded loop over constants, output past the memory bound are refused here, not at a send).
 */
export async function checkTemplateSource(template: TemplateSource, layoutHtml: string | null): Promise<void> {
  await renderEmail(template, layoutHtml, {});
}

/** A declared variable the caller did not give is 400 at `body.variables.<name>`. */
export function assertVariables(declared: readonly string[], variables: Record<string, unknown>): void {
  const missing = declared.find((name) => !Object.hasOwn(variables, name));
  if (missing) throw new AppError('VALIDATION_FAILED', `The template needs the variable "${missing}"`, { path: ['body', 'variables', missing] });
}
