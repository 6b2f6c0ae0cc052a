// The pure parts of the translation area: normalization, the shown similarity and the index
// threshold, where glossary terms occur in a text, DeepL's language codes and the OpenAI prompt.
import { describe, expect, it } from 'vitest';
import { indexThreshold, shownSimilarity } from '../../../src/modules/translation/lookup.ts';
import { normalizeSpacing, normalizeText } from '../../../src/modules/translation/normalize.ts';
import { deeplSource, deeplTarget } from '../../../src/modules/translation/providers/deepl.ts';
import { translationPrompt } from '../../../src/modules/translation/providers/openai.ts';
import { occurringTerms, segmentTerms } from '../../../src/modules/translation/providers/termMarkup.ts';

describe('normalization', () => {
  it('composes (NFC), trims, collapses whitespace runs and lowercases', () => {
    expect(normalizeText('  Cafe\u0301\t\n AU  LAIT\u00a0 ')).toBe('café au lait');
    expect(normalizeSpacing('  Cafe\u0301\t LAIT ')).toBe('Café LAIT');
  });
});

describe('similarity', () => {
  it('shows 100 only for an exact match, rounds the rest to at most 99', () => {
    expect(shownSimilarity(1, true)).toBe(100);
    expect(shownSimilarity(1, false)).toBe(99);
    expect(shownSimilarity(0.7449, false)).toBe(74);
    expect(shownSimilarity(0.745, false)).toBe(75);
  });

  it('asks the index for what rounds to the threshold, never for 0', () => {
    expect(indexThreshold(75)).toBeCloseTo(0.745);
    expect(indexThreshold(0)).toBeCloseTo(0.001);
  });
});

describe('glossary terms in a text', () => {
  const hints = [
    { term: 'cat', translation: 'Katze', caseSensitive: false },
    { term: 'Apple', translation: 'Apple Inc.', caseSensitive: true },
    { term: 'shopping cart', translation: 'Warenkorb', caseSensitive: false },
    { term: 'cart', translation: 'Karren', caseSensitive: false },
  ];

  it('finds whole words, any whitespace between a term’s words, case-sensitive terms by case, longer terms first', () => {
    const segments = segmentTerms('A CAT, a category, an apple, an Apple and a Shopping\n cart or a cart.', hints);
    expect(segments.filter((segment) => segment.kind === 'term').map((segment) => [segment.text, segment.hint.translation])).toEqual([
      ['CAT', 'Katze'],
      ['Apple', 'Apple Inc.'],
      ['Shopping\n cart', 'Warenkorb'],
      ['cart', 'Karren'],
    ]);
    expect(segments.map((segment) => segment.text).join('')).toBe('A CAT, a category, an apple, an Apple and a Shopping\n cart or a cart.');
    expect(occurringTerms('the shopping cart', hints).map((hint) => hint.term)).toEqual(['shopping cart']);
    expect(occurringTerms('Käte und Kätzchen: cat.', hints).map((hint) => hint.term)).toEqual(['cat']);
    expect(occurringTerms('(a+b)*', [{ term: 'a+b', translation: 'x', caseSensitive: false }])).toHaveLength(1);
  });
});

describe('provider specifics', () => {
  it('gives DeepL its source and target codes', () => {
    expect(deeplSource('de-at')).toBe('de');
    expect([deeplTarget('en'), deeplTarget('en-gb'), deeplTarget('pt'), deeplTarget('pt-br'), deeplTarget('zh'), deeplTarget('zh-hant'), deeplTarget('de-ch')]).toEqual([
      'en-US',
      'en-GB',
      'pt-PT',
      'pt-BR',
      'zh-HANS',
      'zh-HANT',
      'de',
    ]);
  });

  it('writes the glossary into the OpenAI prompt as JSON strings', () => {
    const prompt = translationPrompt('en', 'de', [{ term: 'say "hi"', translation: 'sag „hallo“', caseSensitive: false }]);
    expect(prompt).toContain('- "say \\"hi\\"" → "sag „hallo“"');
    expect(translationPrompt('en', 'de', [])).not.toContain('Glossary');
  });
});
