import { describe, expect, it } from 'vitest';
import { formatDuration, rebuildProgress } from '../../src/cli/rebuildProgress.ts';

/** A progress reporter on a clock the test moves, writing into `written`. */
function reporter(isTTY: boolean, total = 10_000) {
  let time = 0;
  const written: string[] = [];
  const progress = rebuildProgress({ name: 'items', total, output: { isTTY, write: (text: string) => written.push(text) }, intervalMs: 1_000, now: () => time });
  return { progress, written, advance: (ms: number) => (time += ms) };
}

describe('rebuildProgress', () => {
  it('reports at most once per interval, with the count, the rate and the time left, then a last line', () => {
    const { progress, written, advance } = reporter(false);
    progress.applied(500);
    advance(400);
    progress.applied(500);
    expect(written).toEqual([]);
    advance(600);
    progress.applied(1_000);
    advance(500);
    progress.applied(2_000);
    advance(500);
    progress.applied(2_000);
    progress.done();
    expect(written).toEqual([
      'items: 2,000 of 10,000 events (20%), 2,000 events/s, 4 s left\n',
      'items: 6,000 of 10,000 events (60%), 3,000 events/s, 2 s left\n',
      'items: 6,000 of 10,000 events (60%), 3,000 events/s, done\n',
    ]);
  });

  it('rewrites one line in place on a terminal and ends it when done', () => {
    const { progress, written, advance } = reporter(true);
    advance(2_000);
    progress.applied(1_000);
    progress.done();
    expect(written).toEqual([
      '\ritems: 1,000 of 10,000 events (10%), 500 events/s, 18 s left\u001b[K',
      '\ritems: 1,000 of 10,000 events (10%), 500 events/s, done\u001b[K\n',
    ]);
  });

  it('grows the total with events committed after it was counted, and reports an empty log as done', () => {
    const grown = reporter(false, 100);
    grown.advance(1_000);
    grown.progress.applied(150);
    expect(grown.written).toEqual(['items: 150 of 150 events (100%), 150 events/s, 0 s left\n']);
    const empty = reporter(false, 0);
    empty.progress.done();
    expect(empty.written).toEqual([expect.stringMatching(/^items: 0 of 0 events \(100%\), 0 events\/s, done\n$/)]);
  });

  it('writes durations in seconds, minutes or hours', () => {
    expect([formatDuration(0.2), formatDuration(59), formatDuration(125), formatDuration(7_800)]).toEqual(['1 s', '59 s', '2 min 5 s', '2 h 10 min']);
  });
});
