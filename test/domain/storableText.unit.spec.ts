import { describe, expect, it } from 'vitest';
import { findUnstorableText, unstorableTextReason } from '../../domain/shared/storableText.ts';

describe('storable text', () => {
  it('accepts any well-formed text, surrogate pairs included', () => {
    for (const text of ['', 'plain', 'Tiếng Việt', '😀', '\ud83d\ude00', '\uffff', 'a\u0001b']) expect(unstorableTextReason(text), text).toBeNull();
  });

  it('refuses NUL and lone surrogates, high or low, anywhere in the text', () => {
    expect(unstorableTextReason('a\u0000')).toMatch(/NUL/);
    for (const text of ['\ud800', 'a\udbff', '\udc00z', '\ude00\ud83d', '😀\ud800']) expect(unstorableTextReason(text), escape(text)).toMatch(/lone surrogate/);
  });

  it('finds the first unstorable string or key of parsed JSON with its path', () => {
    expect(findUnstorableText({ a: [1, 'ok', { b: null }], c: true })).toBeNull();
    expect(findUnstorableText('\ud800')).toEqual({ path: [], reason: expect.stringMatching(/lone surrogate/) });
    expect(findUnstorableText([{ title: 'ok' }, { meta: { list: ['x', 'y\u0000'] } }])).toEqual({ path: [1, 'meta', 'list', 1], reason: expect.stringMatching(/NUL/) });
    expect(findUnstorableText({ meta: { ['k\udc00']: 1 } })).toEqual({ path: ['meta', 'k\udc00'], reason: expect.stringMatching(/^Keys .*lone surrogate/) });
  });
});
