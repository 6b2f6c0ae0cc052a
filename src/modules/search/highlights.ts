// Highlights of search hits, marked on the original text: the text is folded for accents the way
// the index folds it (so "tieng" marks "Tiếng"), matches are found in the folded text and mapped
// back to the original characters. Snippets are HTML-escaped, matches wrapped in <mark>.

const SPECIAL_FOLDS: Record<string, string> = {
  đ: 'd', Đ: 'd', ð: 'd', Ð: 'd', ø: 'o', Ø: 'o', ł: 'l', Ł: 'l', ß: 'ss', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe',
  ı: 'i', þ: 'th', Þ: 'th', ħ: 'h', Ħ: 'h', ŧ: 't', Ŧ: 't',
};

/** Folds one character: decomposes, drops combining marks, lower-cases. */
export function foldCharacter(character: string): string {
  const special = SPECIAL_FOLDS[character];
  if (special !== undefined) return special;
  return character.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export function foldAccents(text: string): string {
  return Array.from(text.normalize('NFC'), foldCharacter).join('');
}

/** The words of a search query, as the index splits them: runs of letters and digits. */
export function queryWords(query: string): string[] {
  return query
    .normalize('NFC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

interface FoldedText {
  folded: string;
  /** For each code unit of `folded`, the index in the original text's characters. */
  origin: number[];
  characters: string[];
}

function fold(text: string): FoldedText {
  const characters = Array.from(text.normalize('NFC'));
  let folded = '';
  const origin: number[] = [];
  characters.forEach((character, index) => {
    const piece = foldCharacter(character);
    folded += piece;
    for (let i = 0; i < piece.length; i += 1) origin.push(index);
  });
  return { folded, origin, characters };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const SNIPPET_CONTEXT = 60;

/**
 * A snippet of `text` around its first match of any query word (a word of the text starting with
 * it, accents ignored), every match inside it marked; null when nothing matches.
 */
export function highlight(text: string, words: readonly string[]): string | null {
  const { folded, origin, characters } = fold(text);
  const needles = [...new Set(words.map(foldAccents).filter((word) => word !== ''))];
  const ranges: [number, number][] = [];
  for (const needle of needles) {
    for (let at = folded.indexOf(needle); at !== -1; at = folded.indexOf(needle, at + 1)) {
      const startsWord = at === 0 || !WORD_CHARACTER.test(folded[at - 1]!);
      if (!startsWord) continue;
      const start = origin[at]!;
      const end = origin[at + needle.length - 1]! + 1;
      ranges.push([start, end]);
    }
  }
  if (ranges.length === 0) return null;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  const first = merged[0]!;
  const from = Math.max(0, first[0] - SNIPPET_CONTEXT);
  const to = Math.min(characters.length, first[1] + SNIPPET_CONTEXT * 2);
  let snippet = from > 0 ? '…' : '';
  let cursor = from;
  for (const [start, end] of merged) {
    if (start >= to) break;
    snippet += escapeHtml(characters.slice(cursor, start).join(''));
    snippet += `<mark>${escapeHtml(characters.slice(start, Math.min(end, to)).join(''))}</mark>`;
    cursor = Math.min(end, to);
  }
  snippet += escapeHtml(characters.slice(cursor, to).join(''));
  if (to < characters.length) snippet += '…';
  return snippet.replace(/\s+/g, ' ').trim();
}
