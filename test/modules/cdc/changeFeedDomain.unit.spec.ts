import { describe, expect, it } from 'vitest';
import { encodeCursor, tryDecodeCursor } from '../../../domain/changeFeed/cursor.ts';
import { feedEntryOf, itemSignalOf } from '../../../domain/changeFeed/feedEntry.ts';
import { isExhausted, retryDelayMs } from '../../../domain/changeFeed/retryPolicy.ts';
import { subscriptionDecider, type SubscriptionCommand, type SubscriptionEvent } from '../../../domain/changeFeed/subscription.ts';
import { signatureHeader, verifySignature } from '../../../src/modules/cdc/webhookSignature.ts';

function given(events: SubscriptionEvent[]) {
  return events.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState());
}
const created: SubscriptionEvent = {
  type: 'cdc_subscription.created',
  data: { subscriptionId: 's1', name: 'n', kind: 'pull', url: null, secretCiphertext: null, collections: null, operations: null, cursorSeq: 5 },
};
const decide = (events: SubscriptionEvent[], command: SubscriptionCommand) => subscriptionDecider.decide(command, given(events));

describe('subscription decider', () => {
  it('pauses an active subscription and refuses to pause it twice', () => {
    expect(decide([created], { type: 'pause' })).toEqual([{ type: 'cdc_subscription.paused', data: { subscriptionId: 's1' } }]);
    expect(() => decide([created, { type: 'cdc_subscription.paused', data: { subscriptionId: 's1' } }], { type: 'pause' })).toThrow(
      expect.objectContaining({ status: 409 }),
    );
    expect(() => decide([created], { type: 'resume' })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('acks forward only', () => {
    expect(() => decide([created], { type: 'acknowledge', cursorSeq: 4 })).toThrow(expect.objectContaining({ code: 'ACK_REGRESSION' }));
    expect(decide([created], { type: 'acknowledge', cursorSeq: 5 })).toEqual([]);
    expect(decide([created], { type: 'acknowledge', cursorSeq: 9 })).toEqual([
      { type: 'cdc_subscription.acknowledged', data: { subscriptionId: 's1', cursorSeq: 9 } },
    ]);
  });

  it('replays dead and stale subscriptions back to active, with a new generation', () => {
    const dead = [created, { type: 'cdc_subscription.died', data: { subscriptionId: 's1', reason: 'x' } } as SubscriptionEvent];
    expect(() => decide(dead, { type: 'resume' })).toThrow(expect.objectContaining({ status: 409 }));
    expect(decide(dead, { type: 'replay', cursorSeq: 1 })).toEqual([
      { type: 'cdc_subscription.replayed', data: { subscriptionId: 's1', cursorSeq: 1, generation: 1, previousState: 'dead', state: 'active' } },
    ]);
    const paused = [created, { type: 'cdc_subscription.paused', data: { subscriptionId: 's1' } } as SubscriptionEvent];
    expect(decide(paused, { type: 'replay', cursorSeq: 1 })[0]!.data).toMatchObject({ state: 'paused' });
  });

  it('lets the service mark only live subscriptions dead or stale, and ignores deleted ones', () => {
    expect(decide([created], { type: 'markDead', reason: 'r' })).toHaveLength(1);
    const deleted = [created, { type: 'cdc_subscription.deleted', data: { subscriptionId: 's1' } } as SubscriptionEvent];
    expect(decide(deleted, { type: 'markStale', reason: 'r' })).toEqual([]);
    expect(() => decide(deleted, { type: 'pause' })).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => decide([], { type: 'pause' })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});

describe('feed entries', () => {
  it('maps item events to items.* with the snapshot and the changed keys', () => {
    expect(feedEntryOf({ type: 'item.updated', data: { collection: 'a', itemId: 'i', snapshot: { id: 'i', x: 2 }, delta: { x: 2 } } })).toEqual({
      type: 'items.update',
      collection: 'a',
      itemId: 'i',
      data: { id: 'i', x: 2 },
      dataKey: 'snapshot',
      changedKeys: ['x'],
    });
    expect(feedEntryOf({ type: 'user.created', data: {} })).toBeNull();
    expect(itemSignalOf({ type: 'item.restored', data: { collection: 'a', itemId: 'i' } })).toEqual({ collection: 'a', action: 'create', itemId: 'i' });
    expect(itemSignalOf({ type: 'field.added', data: { collection: 'a' } })).toBeNull();
  });

  it('names the part of the event that is the entry data as it is, so the feed can read it from the log', () => {
    const field = { field: 'title', type: 'string' };
    expect(feedEntryOf({ type: 'field.updated', data: { collection: 'a', field } })).toMatchObject({ data: field, dataKey: 'field' });
    expect(feedEntryOf({ type: 'field.removed', data: { collection: 'a', field: 'title' } })).toMatchObject({ data: null, dataKey: null });
    // Built from the event: kept in the feed.
    expect(feedEntryOf({ type: 'collection.updated', data: { collection: 'a', meta: { note: 'n' } } })?.dataKey).toBeNull();
    expect(feedEntryOf({ type: 'relation.created', data: { relationId: 'r', relation: { collection: 'a' } } })?.dataKey).toBeNull();
  });

  it('round-trips cursors and refuses anything else', () => {
    expect(tryDecodeCursor(encodeCursor(42))).toBe(42);
    for (const bad of ['', 'abc', encodeCursor(1).slice(1), Buffer.from('f1:01').toString('base64url'), Buffer.from('f2:1').toString('base64url')]) {
      expect(tryDecodeCursor(bad), bad).toBeNull();
    }
  });
});

describe('retry policy', () => {
  const policy = { baseMs: 1_000, maxMs: 60_000, maxAttempts: 5 };
  it('doubles with equal jitter and is capped', () => {
    expect(retryDelayMs(1, policy, 0)).toBe(500);
    expect(retryDelayMs(1, policy, 0.999)).toBeLessThanOrEqual(1_000);
    expect(retryDelayMs(3, policy, 0)).toBe(2_000);
    expect(retryDelayMs(30, policy, 1)).toBe(60_000);
    expect(isExhausted(4, policy)).toBe(false);
    expect(isExhausted(5, policy)).toBe(true);
  });
});

describe('webhook signature', () => {
  it('signs "<t>.<raw body>" and verifies within the tolerance only', () => {
    const header = signatureHeader('secret', '{"a":1}', 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature('secret', '{"a":1}', header, { nowSeconds: 1_700_000_010, toleranceSeconds: 300 })).toBe(true);
    expect(verifySignature('secret', '{"a":2}', header, { nowSeconds: 1_700_000_010, toleranceSeconds: 300 })).toBe(false);
    expect(verifySignature('other', '{"a":1}', header, { nowSeconds: 1_700_000_010, toleranceSeconds: 300 })).toBe(false);
    expect(verifySignature('secret', '{"a":1}', header, { nowSeconds: 1_700_001_000, toleranceSeconds: 300 })).toBe(false);
  });
});
