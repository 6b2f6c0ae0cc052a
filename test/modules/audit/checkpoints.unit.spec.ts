// The arithmetic of log checkpoints: the head hash, and where a site's checkpoints close while its
// events are folded in log order. There is no database here; checkpoints.int.spec.ts covers that.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { closeCheckpoint, EMPTY_HEAD, foldLogEvents, newSiteLogState, nextHeadHash, type LogEvent } from '../../../src/modules/audit/checkpointFold.ts';
import { checkpointDigest, checkpointPayloadText, type CheckpointPayload } from '../../../src/modules/audit/checkpointPayload.ts';

const NOW = new Date('2030-01-01T00:00:00.000Z');

let nextPosition = 1;
function event(siteId: string, streamId: string, streamPosition: number, txId = String(1000 + nextPosition)): LogEvent {
  const position = nextPosition++;
  return { siteId, streamId, streamPosition, position, txId, hash: `hash-${position}` };
}

describe('the head hash', () => {
  it('is the SHA-256 of the previous head, the position and the event hash, joined by the unit separator', () => {
    const expected = createHash('sha256').update('\x1f7\x1fabc').digest('hex');
    expect(nextHeadHash(EMPTY_HEAD, 7, 'abc')).toBe(expected);
    expect(nextHeadHash(expected, 8, 'def')).toBe(createHash('sha256').update(`${expected}\x1f8\x1fdef`).digest('hex'));
  });

  it('depends on the order of the events', () => {
    const ab = nextHeadHash(nextHeadHash(EMPTY_HEAD, 1, 'a'), 2, 'b');
    const ba = nextHeadHash(nextHeadHash(EMPTY_HEAD, 2, 'b'), 1, 'a');
    expect(ab).not.toBe(ba);
  });
});

describe('folding the log', () => {
  it('closes a checkpoint at every `every`-th event of a site, counting from its last checkpoint', () => {
    const events = [1, 2, 3, 4, 5, 6, 7].map((n) => event('a', 'a/s', n));
    const folded = foldLogEvents(new Map(), events, { every: 3, now: NOW });
    expect(folded.drafts.map((draft) => [draft.seq, draft.eventCount, draft.position])).toEqual([
      [1, 3, events[2]!.position],
      [2, 6, events[5]!.position],
    ]);
    const head = events.slice(0, 3).reduce((previous, each) => nextHeadHash(previous, each.position, each.hash), EMPTY_HEAD);
    expect(folded.drafts[0]).toMatchObject({ siteId: 'a', headHash: head, streamCount: 1, txId: events[2]!.txId });
    expect(folded.states.get('a')).toMatchObject({ eventCount: 7, pendingEvents: 1, lastSeq: 2, lastPosition: events[6]!.position });
  });

  it('keeps each site apart and counts the streams started', () => {
    const events = [event('a', 'a/s1', 1), event('b', 'b/s1', 1), event('a', 'a/s2', 1), event('a', 'a/s1', 2), event('b', 'b/s1', 2)];
    const folded = foldLogEvents(new Map(), events, { every: 3, now: NOW });
    expect(folded.drafts).toHaveLength(1);
    expect(folded.drafts[0]).toMatchObject({ siteId: 'a', seq: 1, eventCount: 3, streamCount: 2 });
    expect(folded.states.get('b')).toMatchObject({ eventCount: 2, streamCount: 1, pendingEvents: 2, lastSeq: 0 });
  });

  it("records each stream's newest event per checkpoint, even when log order reads an older one later", () => {
    // A transaction with an older id may append after a newer one commits: log order is by transaction.
    const later = event('a', 'a/s', 3, '2000');
    const earlier = event('a', 'a/s', 2, '2001');
    const next = event('a', 'a/s', 4, '2002');
    const folded = foldLogEvents(new Map(), [later, earlier, next], { every: 2, now: NOW });
    expect(folded.streamHeads).toEqual([
      { siteId: 'a', seq: 1, streamId: 'a/s', streamPosition: 3, hash: later.hash },
      { siteId: 'a', seq: 2, streamId: 'a/s', streamPosition: 4, hash: next.hash },
    ]);
  });

  it('goes on from the state of the previous batch without changing it', () => {
    const events = [1, 2, 3, 4].map((n) => event('a', 'a/s', n));
    const once = foldLogEvents(new Map(), events, { every: 3, now: NOW });
    const first = foldLogEvents(new Map(), events.slice(0, 2), { every: 3, now: NOW });
    const before = new Map(first.states);
    const snapshot = structuredClone(before.get('a'));
    const second = foldLogEvents(before, events.slice(2), { every: 3, now: NOW });
    expect(before.get('a')).toEqual(snapshot);
    expect(second.states.get('a')).toEqual(once.states.get('a'));
    expect([...first.drafts, ...second.drafts]).toEqual(once.drafts);
  });

  it('closes a checkpoint on demand at the last event read (the interval rule)', () => {
    const state = foldLogEvents(new Map(), [event('a', 'a/s', 1)], { every: 10, now: NOW }).states.get('a')!;
    const later = new Date(NOW.getTime() + 3_600_000);
    const draft = closeCheckpoint(state, later);
    expect(draft).toMatchObject({ seq: 1, eventCount: 1, streamCount: 1 });
    expect(state).toMatchObject({ lastSeq: 1, pendingEvents: 0, since: later });
    expect(newSiteLogState('x', NOW)).toMatchObject({ headHash: EMPTY_HEAD, lastSeq: 0, lastDigest: null });
  });
});

describe('the payload', () => {
  it('is canonical JSON (keys sorted, no spaces), whatever order its fields were given in', () => {
    const payload: CheckpointPayload = {
      version: 1,
      type: 'svc.log-checkpoint',
      siteId: 's',
      seq: 1,
      lastTxId: '10',
      position: 3,
      eventCount: 3,
      streamCount: 1,
      streamsTouched: 1,
      streamsDigest: 'd',
      headHash: 'h',
      previousDigest: null,
      createdAt: NOW.toISOString(),
      keyId: 'k',
      algorithm: 'Ed25519',
    };
    const text = checkpointPayloadText(payload);
    expect(text.startsWith('{"algorithm":"Ed25519","createdAt":"2030-01-01T00:00:00.000Z","eventCount":3,')).toBe(true);
    expect(text).toContain('"previousDigest":null');
    expect(text).not.toContain(' ');
    expect(checkpointDigest(text)).toBe(createHash('sha256').update(text).digest('hex'));
  });
});
