// Where glossary terms occur in a text: whole words (not inside a longer word), whitespace runs
// matching any whitespace, case-insensitive unless the term is case-sensitive; longer terms first.
import type { GlossaryHint } from './port.ts';

export type Segment = { kind: 'text'; text: string } | { kind: 'term'; text: string; hint: GlossaryHint };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function termPattern(hint: GlossaryHint): RegExp {
  const body = hint.term.trim().split(/\s+/u).map(escapeRegExp).join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, hint.caseSensitive ? 'gu' : 'giu');
}

/** The text cut into plain runs and term occurrences (each occurrence of the first, longest, term that matches there). */
export function segmentTerms(text: string, hints: readonly GlossaryHint[]): Segment[] {
  let segments: Segment[] = [{ kind: 'text', text }];
  const longestFirst = [...hints].sort((a, b) => b.term.length - a.term.length);
  for (const hint of longestFirst) {
    const pattern = termPattern(hint);
    segments = segments.flatMap((segment): Segment[] => {
      if (segment.kind === 'term') return [segment];
      const pieces: Segment[] = [];
      let last = 0;
      for (const match of segment.text.matchAll(pattern)) {
        if (match.index > last) pieces.push({ kind: 'text', text: segment.text.slice(last, match.index) });
        pieces.push({ kind: 'term', text: match[0], hint });
        last = match.index + match[0].length;
      }
      if (last < segment.text.length) pieces.push({ kind: 'text', text: segment.text.slice(last) });
      return pieces;
    });
  }
  return segments;
}

/** The hints that occur in `text`. */
export function occurringTerms(text: string, hints: readonly GlossaryHint[]): GlossaryHint[] {
  const found = new Set<GlossaryHint>();
  for (const segment of segmentTerms(text, hints)) if (segment.kind === 'term') found.add(segment.hint);
  return hints.filter((hint) => found.has(hint));
}
