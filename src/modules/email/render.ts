// Rendering of a site's email (docs/email.md "Rendering") with the service's sandboxed LiquidJS engines
// (infra/templates/liquid.ts: no file, no code, bounded, parsed sources cached). The HTML part escapes
// every output; the subject and the text part are plain.
import { convert } from 'html-to-text';
import { AppError } from '../../../domain/shared/appError.ts';
import { MAX_SOURCE_LENGTH, parseLiquid, renderLiquid } from '../../../infra/templates/liquid.ts';

/** The most source a template part or a layout may hold, in characters. */
export { MAX_SOURCE_LENGTH };
const SUBJECT_MAX = 998;

/** `{{content}}` in a layout, spaces allowed inside the braces. */
const CONTENT_MARKER = /\{\{\s*content\s*\}\}/g;
/** The name the rendered body takes in a layout's scope: a hyphen keeps it apart from any variable a template declares. */
const LAYOUT_CONTENT = 'svc-layout-content';

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
  parseLiquid('html', layoutSource(html), path);
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
  const subject = (await renderLiquid('plain', template.subject, variables, pathOf('subject'))).replace(/[\r\n]+/g, ' ').trim().slice(0, SUBJECT_MAX);
  let html: string | null = null;
  if (template.html !== null) {
    const body = await renderLiquid('html', template.html, variables, pathOf('html'));
    html = layoutHtml === null ? body : await renderLiquid('html', layoutSource(layoutHtml), { ...variables, [LAYOUT_CONTENT]: body }, pathOf('layout'));
  }
  const text = template.text !== null ? await renderLiquid('plain', template.text, variables, pathOf('text')) : convert(html ?? '', { wordwrap: 78 });
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
