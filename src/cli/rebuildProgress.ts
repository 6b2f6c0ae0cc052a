// The progress of `svc projections rebuild` on standard error: events applied of the log's total, the
// rate and the time left, at most once per interval. On a terminal one line is rewritten in place;
// elsewhere (a pipe, a CI log) nothing is printed unless --progress asks, and then each report is a
// line of its own. Standard output keeps the command's answer only.
import type { Database } from '../../infra/postgres/database.ts';

export interface ProgressOutput {
  write(text: string): unknown;
  /** A terminal: the line is rewritten in place. */
  isTTY?: boolean;
}

export interface RebuildProgress {
  /** `count` more events of the log were read for the rebuild. */
  applied(count: number): void;
  /** The rebuild finished: the last report, whatever the interval. */
  done(): void;
}

export interface RebuildProgressOptions {
  name: string;
  /** Events in the log when the rebuild started. */
  total: number;
  output: ProgressOutput;
  intervalMs?: number;
  now?: () => number;
}

const NUMBER = new Intl.NumberFormat('en');

/** Reports of one projection's rebuild: the first once `intervalMs` has passed, then at most one per interval, and the last. */
export function rebuildProgress({ name, total, output, intervalMs = 1_000, now = Date.now }: RebuildProgressOptions): RebuildProgress {
  const started = now();
  let applied = 0;
  let reportedAt = started;
  const report = (final: boolean) => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = applied / seconds;
    // Events committed after the count was taken may be replayed too: the total grows with them.
    const of = Math.max(total, applied);
    const percent = of > 0 ? Math.floor((applied / of) * 100) : 100;
    const left = final ? 'done' : rate > 0 ? `${formatDuration((of - applied) / rate)} left` : 'time left unknown';
    const line = `${name}: ${NUMBER.format(applied)} of ${NUMBER.format(of)} events (${percent}%), ${NUMBER.format(Math.round(rate))} events/s, ${left}`;
    // In place on a terminal (cleared to the end of the line), else one line per report.
    output.write(output.isTTY ? `\r${line}\u001b[K${final ? '\n' : ''}` : `${line}\n`);
  };
  return {
    applied(count) {
      applied += count;
      if (now() - reportedAt < intervalMs) return;
      reportedAt = now();
      report(false);
    },
    done() {
      report(true);
    },
  };
}

/** `42 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3_600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3_600)} h ${Math.floor((whole % 3_600) / 60)} min`;
}

/**
 * `database` as the rebuild uses it, telling `onEvents` how many events each read of the log
 * returned. A rebuild reads the log in batches in its one transaction (src/runtime/projectionRunner.ts
 * rebuildProjection); the rows of those reads are the events' rows (`event_id`, `stream_position`).
 */
export function countingLogReads(database: Database, onEvents: (count: number) => void): Database {
  return {
    ...database,
    withSystem: (work) =>
      database.withSystem((tx) =>
        work({
          ...tx,
          query: async (statement) => {
            const rows = await tx.query(statement);
            const first = rows[0] as Record<string, unknown> | undefined;
            if (first && 'event_id' in first && 'stream_position' in first) onEvents(rows.length);
            return rows as never;
          },
        }),
      ),
  };
}
