// The per-instance cache of stream heads (src/runtime/streamHeads.ts) on its own: bounded with the
// least recently used stream out, heads remembered only once their (collected) transaction commits,
// forgotten at once when written where no commit will be seen, and never replaced by an older head.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../domain/shared/events.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { createStreamHeads } from '../../src/runtime/streamHeads.ts';

/** A transaction as the cache sees it: only a key (its WeakMap needs an object). */
const newTx = () => ({}) as Queryable;

/** A minimal item event, stored at `streamPosition` of `streamId`. */
function head(streamId: string, streamPosition: number, title = `v${streamPosition}`): StoredEvent {
  return {
    position: 1000 + streamPosition,
    txId: '1',
    siteId: 'site',
    streamId,
    streamPosition,
    eventId: randomUUID(),
    type: 'item.updated',
    schemaVersion: 1,
    data: { collection: 'articles', itemId: 'a', snapshot: { id: 'a', title }, delta: { title } },
    metadata: { actor: { kind: 'system', id: null } },
    recordedAt: new Date(0),
    hash: 'hash',
    prevHash: null,
  } as unknown as StoredEvent;
}

/** Remembers `event` as a committed head (a collected transaction that committed). */
function commit(heads: ReturnType<typeof createStreamHeads>, ...events: StoredEvent[]): void {
  const tx = newTx();
  heads.collect(tx);
  for (const event of events) heads.appended(tx, event.streamId, event);
  heads.committed(tx);
}

describe('createStreamHeads', () => {
  it('is empty at first', () => {
    const heads = createStreamHeads();
    expect(heads.size).toBe(0);
    expect(heads.get('s/item/a/1')).toBeUndefined();
  });

  it('holds at most maxStreams heads, the least recently committed out first', () => {
    const heads = createStreamHeads(2);
    const [a, b, c] = [head('a', 1), head('b', 1), head('c', 1)];
    commit(heads, a);
    commit(heads, b);
    expect(heads.size).toBe(2);
    commit(heads, c);
    expect(heads.size).toBe(2);
    expect(heads.get('a')).toBeUndefined();
    expect(heads.get('b')).toBe(b);
    expect(heads.get('c')).toBe(c);
  });

  it('counts a get as a use: the stream read last stays when another comes in', () => {
    const heads = createStreamHeads(2);
    const [a, b, c] = [head('a', 1), head('b', 1), head('c', 1)];
    commit(heads, a);
    commit(heads, b);
    expect(heads.get('a')).toBe(a);
    commit(heads, c);
    expect(heads.get('b')).toBeUndefined();
    expect(heads.get('a')).toBe(a);
    expect(heads.get('c')).toBe(c);
    // A miss does not count: a is still the one used before c.
    expect(heads.get('b')).toBeUndefined();
    commit(heads, head('d', 1));
    expect(heads.get('a')).toBeUndefined();
    expect(heads.get('c')).toBe(c);
  });

  it('counts a new head of a known stream as a use, and does not grow with it', () => {
    const heads = createStreamHeads(2);
    commit(heads, head('a', 1));
    commit(heads, head('b', 1));
    const a2 = head('a', 2);
    commit(heads, a2);
    expect(heads.size).toBe(2);
    commit(heads, head('c', 1));
    expect(heads.get('a')).toBe(a2);
    expect(heads.get('b')).toBeUndefined();
  });

  it('remembers a head appended in a collected transaction only once that transaction committed', () => {
    const heads = createStreamHeads();
    const tx = newTx();
    heads.collect(tx);
    const first = head('s', 1);
    heads.appended(tx, 's', first);
    expect(heads.get('s')).toBeUndefined();
    expect(heads.size).toBe(0);
    heads.committed(tx);
    expect(heads.get('s')).toBe(first);
    // Committing again (or another transaction that collected nothing) changes nothing.
    heads.committed(tx);
    heads.committed(newTx());
    expect(heads.get('s')).toBe(first);
    expect(heads.size).toBe(1);
  });

  it('forgets the previous head at once when a collected transaction appends, and remembers the new one at its commit', () => {
    const heads = createStreamHeads();
    commit(heads, head('s', 1));
    const tx = newTx();
    heads.collect(tx);
    const second = head('s', 2);
    heads.appended(tx, 's', second);
    expect(heads.get('s')).toBeUndefined();
    heads.committed(tx);
    expect(heads.get('s')).toBe(second);
  });

  it('keeps the last head a transaction appended to a stream, and every stream it appended to', () => {
    const heads = createStreamHeads();
    const tx = newTx();
    heads.collect(tx);
    const [s1, s2, t1] = [head('s', 1), head('s', 2), head('t', 1)];
    heads.appended(tx, 's', s1);
    heads.appended(tx, 't', t1);
    heads.appended(tx, 's', s2);
    heads.committed(tx);
    expect(heads.get('s')).toBe(s2);
    expect(heads.get('t')).toBe(t1);
  });

  it('never remembers what a transaction that rolled back (never committed) appended', () => {
    const heads = createStreamHeads();
    const first = head('s', 1);
    commit(heads, first);
    const tx = newTx();
    heads.collect(tx);
    heads.appended(tx, 's', head('s', 2));
    // The transaction ends without committed(tx); a retry collects a fresh transaction.
    const retry = newTx();
    heads.collect(retry);
    heads.committed(retry);
    expect(heads.get('s')).toBeUndefined();
  });

  it('does not remember a head appended in a transaction that is not collected, and forgets the cached one at once', () => {
    const heads = createStreamHeads();
    const first = head('s', 1);
    commit(heads, first);
    commit(heads, head('other', 1));
    const tx = newTx();
    heads.appended(tx, 's', head('s', 2));
    expect(heads.get('s')).toBeUndefined();
    expect(heads.size).toBe(1);
    heads.committed(tx);
    expect(heads.get('s')).toBeUndefined();
    expect(heads.get('other')?.streamPosition).toBe(1);
  });

  it('keeps what one transaction collects apart from another transaction', () => {
    const heads = createStreamHeads();
    const [one, two] = [newTx(), newTx()];
    heads.collect(one);
    heads.collect(two);
    const a = head('a', 1);
    const b = head('b', 1);
    heads.appended(one, 'a', a);
    heads.appended(two, 'b', b);
    heads.committed(two);
    expect(heads.get('a')).toBeUndefined();
    expect(heads.get('b')).toBe(b);
    heads.committed(one);
    expect(heads.get('a')).toBe(a);
  });

  it('forgets a stream, and only that stream', () => {
    const heads = createStreamHeads();
    const [a, b] = [head('a', 3), head('b', 1)];
    commit(heads, a, b);
    heads.forget('a');
    heads.forget('unknown');
    expect(heads.get('a')).toBeUndefined();
    expect(heads.get('b')).toBe(b);
    expect(heads.size).toBe(1);
  });

  it('does not let an older head committed after a newer one replace it', () => {
    const heads = createStreamHeads();
    const [older, newer] = [newTx(), newTx()];
    heads.collect(older);
    heads.collect(newer);
    const v2 = head('s', 2);
    const v3 = head('s', 3);
    heads.appended(older, 's', v2);
    heads.appended(newer, 's', v3);
    // The commits' continuations cross: the newer head is remembered first.
    heads.committed(newer);
    heads.committed(older);
    expect(heads.get('s')).toBe(v3);
    // A later head still replaces it, in order.
    const v4 = head('s', 4);
    commit(heads, v4);
    expect(heads.get('s')).toBe(v4);
  });

  it('replaces a head by another one at the same stream position (the one committed last)', () => {
    const heads = createStreamHeads();
    const first = head('s', 2, 'first');
    const second = head('s', 2, 'second');
    commit(heads, first);
    commit(heads, second);
    expect(heads.get('s')).toBe(second);
  });

  it('remembers an older head again once the newer one was forgotten', () => {
    const heads = createStreamHeads();
    commit(heads, head('s', 5));
    heads.forget('s');
    const v2 = head('s', 2);
    commit(heads, v2);
    expect(heads.get('s')).toBe(v2);
  });
});
