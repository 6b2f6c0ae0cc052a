// The normalization of translation memory keys and lookups (docs/translation.md "Normalization"):
// Unicode NFC, trimmed, whitespace runs collapsed to one space, lowercased. Two texts that differ only
// in composition, surrounding or repeated whitespace, or case are the same entry.

/** NFC, trimmed, whitespace runs collapsed to one space: what a case-sensitive glossary term compares. */
export function normalizeSpacing(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** The key of an entry and of a glossary term, and what lookups compare. */
export function normalizeText(text: string): string {
  return normalizeSpacing(text).toLowerCase();
}
