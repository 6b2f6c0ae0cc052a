// A client frame is bounded in depth before it is parsed: a 64 KiB frame of nested `_and`s would
// otherwise reach the recursive filter checks (security review, finding 7).
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../../../src/modules/realtime/realtimeFrames.ts';

const context = { now: new Date('2026-11-27T00:00:00Z'), userId: null };

describe('parseClientFrame', () => {
  it('reads a subscribe frame with a filter', () => {
    const frame = JSON.stringify({ type: 'subscribe', collection: 'articles', filter: { _and: [{ action: { _eq: 'create' } }] } });
    expect(parseClientFrame(frame, context)).toMatchObject({ collection: 'articles', filter: expect.anything() });
  });

  it('refuses a frame nested deeper than 64 levels with VALIDATION_FAILED, not a stack overflow', () => {
    const levels = 20_000;
    const filter = '{"_and":['.repeat(levels) + '{"action":{"_eq":"create"}}' + ']}'.repeat(levels);
    const frame = `{"type":"subscribe","collection":"articles","filter":${filter}}`;
    expect(() => parseClientFrame(frame, context)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/nests deeper than 64/) }));
  });
});
