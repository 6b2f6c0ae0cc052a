import { describe, expect, it } from 'vitest';
import { foldAccents, highlight, queryWords } from '../../../src/modules/search/highlights.ts';

describe('search highlights', () => {
  it('folds Vietnamese and Latin diacritics', () => {
    expect(foldAccents('Tiếng Việt Đường phố Ångström Çà ß')).toBe('tieng viet duong pho angstrom ca ss');
  });

  it('folds decomposed input like precomposed input', () => {
    expect(foldAccents('Vie\u0323\u0302t')).toBe('viet');
  });

  it('splits a query into words of letters and digits', () => {
    expect(queryWords('  tieng, viet!  2024 ')).toEqual(['tieng', 'viet', '2024']);
    expect(queryWords('!!! ---')).toEqual([]);
  });

  it('marks the original accented text for an unaccented query', () => {
    expect(highlight('Học Tiếng Việt mỗi ngày', ['tieng', 'viet'])).toBe('Học <mark>Tiếng</mark> <mark>Việt</mark> mỗi ngày');
  });

  it('matches word prefixes only, not the middle of words', () => {
    expect(highlight('restart the start', ['start'])).toBe('restart the <mark>start</mark>');
    expect(highlight('nothing here', ['viet'])).toBeNull();
  });

  it('escapes HTML in the text around the marks', () => {
    expect(highlight('<b>Việt</b>', ['viet'])).toBe('&lt;b&gt;<mark>Việt</mark>&lt;/b&gt;');
  });

  it('cuts long text into a snippet around the first match', () => {
    const text = `${'a '.repeat(200)}Việt${' b'.repeat(200)}`;
    const snippet = highlight(text, ['viet'])!;
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).toContain('<mark>Việt</mark>');
    expect(snippet.length).toBeLessThan(260);
  });
});
