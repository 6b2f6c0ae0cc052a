// Group commit's scheduling: who runs alone, who shares a transaction, and who answers for a failure.
import { describe, expect, it } from 'vitest';
import { createGroupCommit, type WriteOutcome } from '../../src/runtime/groupCommit.ts';

/** A joint write that records its calls and finishes when the test says so. */
function recordingJointWrite(refuse: (write: string) => boolean = () => false) {
  const calls: { siteId: string; writes: string[]; finish: (error?: Error) => void }[] = [];
  const jointWrite = (siteId: string, writes: string[]) =>
    new Promise<WriteOutcome<string>[]>((resolve, reject) => {
      calls.push({
        siteId,
        writes,
        finish: (error) =>
          error ? reject(error) : resolve(writes.map((write) => (refuse(write) ? { ok: false, error: new Error(`refused ${write}`) } : { ok: true, value: `done ${write}` }))),
      });
    });
  return { calls, jointWrite };
}

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('runs a write at once when its site is idle, and writes that arrive meanwhile together after it', async () => {
    const { calls, jointWrite } = recordingJointWrite();
    const group = createGroupCommit(jointWrite, { maxInFlight: 1 });
    const first = group.submit('a', 'w1');
    const later = ['w2', 'w3', 'w4'].map((write) => group.submit('a', write));
    expect(calls.map((call) => call.writes)).toEqual([['w1']]);
    expect(group.waiting('a')).toBe(3);
    calls[0]!.finish();
    expect(await first).toBe('done w1');
    await settle();
    expect(calls.map((call) => call.writes)).toEqual([['w1'], ['w2', 'w3', 'w4']]);
    calls[1]!.finish();
    expect(await Promise.all(later)).toEqual(['done w2', 'done w3', 'done w4']);
    expect(group.waiting('a')).toBe(0);
  });

  it('keeps up to maxInFlight transactions of a site running, and sites apart', async () => {
    const { calls, jointWrite } = recordingJointWrite();
    const group = createGroupCommit(jointWrite, { maxInFlight: 2 });
    const writes = [group.submit('a', 'a1'), group.submit('a', 'a2'), group.submit('a', 'a3'), group.submit('b', 'b1')];
    expect(calls.map((call) => [call.siteId, call.writes])).toEqual([
      ['a', ['a1']],
      ['a', ['a2']],
      ['b', ['b1']],
    ]);
    for (const call of calls.slice()) call.finish();
    await settle();
    expect(calls.at(-1)!.writes).toEqual(['a3']);
    calls.at(-1)!.finish();
    expect(await Promise.all(writes)).toEqual(['done a1', 'done a2', 'done a3', 'done b1']);
  });

  it('joins waiting writes up to the weight limit, and runs a heavy write at once on its own', async () => {
    const { calls, jointWrite } = recordingJointWrite();
    const group = createGroupCommit(jointWrite, { maxInFlight: 1, maxWeight: 5, soloWeight: 4, weigh: (write: string) => Number(write.slice(1)) });
    const writes = ['w1', 'w2', 'w2', 'w3', 'w9'].map((write) => group.submit('a', write));
    // w1 runs; w9 is heavy and runs beside it; the rest wait.
    expect(calls.map((call) => call.writes)).toEqual([['w1'], ['w9']]);
    calls[0]!.finish();
    await settle();
    expect(calls.at(-1)!.writes).toEqual(['w2', 'w2']);
    calls.at(-1)!.finish();
    await settle();
    expect(calls.at(-1)!.writes).toEqual(['w3']);
    calls.at(-1)!.finish();
    calls[1]!.finish();
    await Promise.all(writes);
  });

  it('refuses one write of a joint transaction alone', async () => {
    const { calls, jointWrite } = recordingJointWrite((write) => write === 'bad');
    const group = createGroupCommit(jointWrite, { maxInFlight: 1 });
    const first = group.submit('a', 'w1');
    const good = group.submit('a', 'good');
    const bad = expect(group.submit('a', 'bad')).rejects.toThrow('refused bad');
    calls[0]!.finish();
    await first;
    await settle();
    calls[1]!.finish();
    expect(await good).toBe('done good');
    await bad;
  });

  it('runs each write of a failed joint transaction again alone, so only the faulty one fails', async () => {
    const { calls, jointWrite } = recordingJointWrite();
    const group = createGroupCommit(jointWrite, { maxInFlight: 1 });
    const first = group.submit('a', 'w1');
    const outcomes = Promise.allSettled(['w2', 'faulty', 'w3'].map((write) => group.submit('a', write)));
    calls[0]!.finish();
    await first;
    await settle();
    calls[1]!.finish(new Error('a constraint failed'));
    for (const write of ['w2', 'faulty', 'w3']) {
      await settle();
      const call = calls.at(-1)!;
      expect(call.writes).toEqual([write]);
      call.finish(write === 'faulty' ? new Error('faulty failed') : undefined);
    }
    const settled = await outcomes;
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('faulty failed');
  });
});
