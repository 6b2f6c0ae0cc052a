// Finds active content in an SVG document (the upload guard, issue #21): scripts, event handlers,
// javascript: URLs, foreignObject and embedding elements, and references to anything outside the file.
// A small XML tokenizer, stricter than a browser on purpose: markup inside <style> is read as markup,
// comments an HTML parser would end early are refused, entities and CSS escapes are decoded before a
// value is judged, and an internal DTD subset (entity declarations) is refused outright.

export type SvgScan =
  | { kind: 'clean'; width?: number; height?: number }
  | { kind: 'not_svg'; detail: string }
  | { kind: 'malformed'; detail: string }
  | { kind: 'active'; detail: string };

/** Elements that run script or embed another document, whatever their namespace prefix. */
const FORBIDDEN_ELEMENTS = new Set([
  'script', 'foreignobject', 'handler', 'listener', 'iframe', 'frame', 'frameset', 'embed', 'object',
  'applet', 'meta', 'link', 'base', 'form', 'animation', 'audio', 'video', 'portal',
]);
const ANIMATION_ELEMENTS = new Set(['animate', 'set', 'animatemotion', 'animatetransform', 'animatecolor']);
const SCRIPT_SCHEMES = ['javascript:', 'vbscript:', 'livescript:', 'data:text/html', 'data:application/xhtml'];
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", colon: ':', tab: '\t', newline: '\n', lpar: '(', rpar: ')', sol: '/', period: '.',
};

/** Decodes an SVG file's bytes: UTF-16 by its byte-order mark (or a `<` followed by a zero), else UTF-8, else Latin-1. */
export function decodeSvgText(bytes: Buffer): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0x3c && bytes[1] === 0x00)) return new TextDecoder('utf-16le').decode(bytes);
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0x00 && bytes[1] === 0x3c)) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

const decodeEntities = (value: string) =>
  value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });

/** Lowercased with whitespace and control characters removed: `java\tscript :` is `javascript:`. */
const compact = (value: string) => value.replace(/[\s\u0000-\u001f\u007f]+/g, '').toLowerCase();

const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();

/** A reference may point into this file (`#id`) or at an inline raster image; `<use>` only into this file. */
function referenceFinding(value: string, inUse: boolean): string | undefined {
  const target = compact(value);
  if (target === '' || target.startsWith('#')) return undefined;
  if (!inUse && target.startsWith('data:image/') && !target.startsWith('data:image/svg')) return undefined;
  return `a reference to "${value.trim().slice(0, 80)}"`;
}

/** CSS from a <style> element or a style attribute: @import, script-ish properties, and url() to anything external. */
function cssFinding(css: string): string | undefined {
  const decoded = css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_whole, hex: string) => String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd))
    .replace(/\\(.)/g, '$1');
  const text = compact(decoded);
  if (text.includes('@import')) return 'an @import in CSS';
  for (const construct of ['expression(', 'behavior:', '-moz-binding', 'image-set(', 'src(']) {
    if (text.includes(construct)) return `"${construct}" in CSS`;
  }
  const urls = [...decoded.matchAll(/url\s*\(\s*(['"]?)([^'")]*)\1\s*\)/gi)];
  for (const match of urls) {
    const finding = referenceFinding(match[2]!, false);
    if (finding) return `${finding} in CSS url()`;
  }
  // A url( the pattern above cannot read is refused rather than guessed at.
  if ((decoded.match(/url\s*\(/gi) ?? []).length > urls.length) return 'a url() in CSS that cannot be read';
  return undefined;
}

function attributeFinding(element: string, name: string, rawValue: string): string | undefined {
  const local = localName(name);
  const full = name.toLowerCase();
  if (full === 'xmlns' || full.startsWith('xmlns:')) return undefined;
  if (local.startsWith('on')) return `an event handler attribute "${name}" on <${element}>`;
  const value = decodeEntities(rawValue);
  const flat = compact(value);
  const scheme = SCRIPT_SCHEMES.find((candidate) => flat.includes(candidate));
  if (scheme) return `a ${scheme} URL in "${name}" on <${element}>`;
  if (local === 'href' || local === 'src' || full === 'xml:base') {
    const finding = referenceFinding(value, element === 'use');
    if (finding) return `${finding} in "${name}" on <${element}>`;
  }
  if (ANIMATION_ELEMENTS.has(element) && local === 'attributename' && (/href$/.test(flat) || flat.startsWith('on') || flat === 'style')) {
    return `an animation (<${element}>) of "${value}"`;
  }
  if (local === 'style' || flat.includes('url(')) {
    const finding = cssFinding(value);
    if (finding) return `${finding} in "${name}" on <${element}>`;
  }
  return undefined;
}

/** The end of a start tag (its `>`), skipping quoted attribute values. */
function endOfTag(text: string, from: number): number {
  let quote = '';
  for (let index = from; index < text.length; index += 1) {
    const character = text[index]!;
    if (quote) {
      if (character === quote) quote = '';
    } else if (character === '"' || character === "'") quote = character;
    else if (character === '>') return index;
  }
  return -1;
}

const PROCESSING_TARGET = /<\?([^\s?]*)/y;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

/** The DOCTYPE may name the W3C's SVG DTD; an internal subset (entities) or another external DTD is refused. */
function doctypeFinding(declaration: string): string | undefined {
  if (/<!ENTITY/i.test(declaration) || declaration.includes('[')) return 'an internal DTD subset (entity declarations)';
  for (const match of declaration.matchAll(/"([^"]*)"|'([^']*)'/g)) {
    const literal = (match[1] ?? match[2] ?? '').trim();
    // A public identifier ("-//W3C//DTD SVG 1.1//EN") names, it does not point; a system literal points.
    if (!/^[-+]\/\//.test(literal) && !/^https?:\/\/www\.w3\.org\//i.test(literal)) return `an external DTD "${literal.slice(0, 80)}"`;
  }
  return undefined;
}

const sizeOf = (value: string | undefined) => {
  const match = value === undefined ? null : /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$/.exec(value);
  return match ? Math.round(Number(match[1])) || undefined : undefined;
};

function dimensionsOf(attributes: Map<string, string>): { width?: number; height?: number } {
  const viewBox = attributes.get('viewbox')?.trim().split(/[\s,]+/).map(Number);
  const fromViewBox = (index: number) => (viewBox?.length === 4 && Number.isFinite(viewBox[index]) ? Math.round(viewBox[index]!) || undefined : undefined);
  const width = sizeOf(attributes.get('width')) ?? fromViewBox(2);
  const height = sizeOf(attributes.get('height')) ?? fromViewBox(3);
  return { ...(width ? { width } : {}), ...(height ? { height } : {}) };
}

/** Scans a whole SVG document; the first finding is returned. */
export function scanSvg(text: string): SvgScan {
  const open: string[] = [];
  let root: { width?: number; height?: number } | undefined;
  let index = 0;
  const styleText = (content: string) => (open.at(-1) === 'style' ? cssFinding(content) : undefined);
  while (index < text.length) {
    const start = text.indexOf('<', index);
    const textFinding = styleText(decodeEntities(text.slice(index, start === -1 ? text.length : start)));
    if (textFinding) return { kind: 'active', detail: `${textFinding} in <style>` };
    if (start === -1) break;
    if (text.startsWith('<!--', start)) {
      const end = text.indexOf('-->', start + 4);
      if (end === -1) return { kind: 'malformed', detail: 'an unterminated comment' };
      // An HTML parser (the SVG inlined in a page) ends `<!-->`, `<!--->` and `--!>` comments where XML does not.
      const body = text.slice(start + 4, end);
      if (body.startsWith('>') || body.startsWith('->') || body.includes('--!>')) return { kind: 'active', detail: 'a comment an HTML parser ends early' };
      index = end + 3;
    } else if (text.startsWith('<![CDATA[', start)) {
      const end = text.indexOf(']]>', start + 9);
      if (end === -1) return { kind: 'malformed', detail: 'an unterminated CDATA section' };
      const finding = styleText(text.slice(start + 9, end));
      if (finding) return { kind: 'active', detail: `${finding} in <style>` };
      index = end + 3;
    } else if (text.startsWith('<!', start)) {
      const close = text.indexOf('>', start);
      if (close === -1) return { kind: 'malformed', detail: 'an unterminated declaration' };
      const finding = doctypeFinding(text.slice(start, close + 1));
      if (finding) return { kind: 'active', detail: finding };
      index = close + 1;
    } else if (text.startsWith('<?', start)) {
      const end = text.indexOf('?>', start + 2);
      if (end === -1) return { kind: 'malformed', detail: 'an unterminated processing instruction' };
      PROCESSING_TARGET.lastIndex = start;
      const target = PROCESSING_TARGET.exec(text)![1]!;
      if (target.toLowerCase() !== 'xml') return { kind: 'active', detail: `a processing instruction <?${target}>` };
      index = end + 2;
    } else if (text.startsWith('</', start)) {
      const end = text.indexOf('>', start);
      if (end === -1) return { kind: 'malformed', detail: 'an unterminated end tag' };
      open.pop();
      index = end + 1;
    } else {
      const end = endOfTag(text, start + 1);
      if (end === -1) return { kind: 'malformed', detail: 'an unterminated start tag' };
      const tag = text.slice(start + 1, end);
      const name = /^[^\s/>]+/.exec(tag)?.[0];
      if (!name) return { kind: 'malformed', detail: `a stray "<" at character ${start}` };
      const element = localName(name);
      if (!root && element !== 'svg') return { kind: 'not_svg', detail: `the root element is <${name}>, not <svg>` };
      if (FORBIDDEN_ELEMENTS.has(element)) return { kind: 'active', detail: `a <${name}> element` };
      const attributes = new Map<string, string>();
      for (const match of tag.slice(name.length).matchAll(ATTRIBUTE)) {
        const value = match[2] ?? match[3] ?? match[4] ?? '';
        const finding = attributeFinding(element, match[1]!, value);
        if (finding) return { kind: 'active', detail: finding };
        attributes.set(match[1]!.toLowerCase(), value);
      }
      root ??= dimensionsOf(attributes);
      if (!tag.endsWith('/')) open.push(element);
      index = end + 1;
    }
  }
  return root ? { kind: 'clean', ...root } : { kind: 'not_svg', detail: 'no <svg> root element' };
}
