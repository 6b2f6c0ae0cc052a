// The job queue port: keyed jobs, at most one run of a key at a time, retries with a delay.
// BullMQ when REDIS_URL is set, an in-process worker over Postgres-backed state otherwise.

export interface JobOutcome {
  /** Run the same key again after this many milliseconds (a retry after a failure, or more work). */
  retryInMs?: number;
}

export type JobHandler<Payload> = (payload: Payload) => Promise<JobOutcome | void>;

export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now (default 0). */
  delayMs?: number;
  /** Bring a waiting job forward to now even if it was delayed (a user's "dispatch now"). */
  promote?: boolean;
}

/** What this process's workers did with a queue's jobs: runs that ended, and runs whose handler threw. */
export interface QueueRuns {
  completed: number;
  failed: number;
}

/** A queue's jobs now: waiting (due or delayed) and running. */
export interface QueueDepth {
  queue: string;
  waiting: number;
  running: number;
}

export interface JobQueue {
  readonly kind: 'bullmq' | 'postgres';
  /** Per queue this process works on (the metrics scrape reads it). */
  readonly runs: ReadonlyMap<string, QueueRuns>;
  /** The depth of each queue this process works on. */
  depth(): Promise<QueueDepth[]>;
  /**
   * Makes sure `key` runs. A key already waiting is not queued twice (it keeps its payload and the
   * earlier of the two times, or is promoted); a key enqueued while it runs runs once more after.
   */
  enqueue(queue: string, key: string, payload: unknown, options?: EnqueueOptions): Promise<void>;
  /**
   * `enqueue` for work already recorded (a flow run, a report queued in the log): when the queue is
   * away (Redis down) the job is owed and given again every second until it is taken, instead of
   * failing the request that recorded the work (its client would retry and record it twice). Other
   * errors still reject. Owed jobs live in this process: one that stops first leaves them to the
   * area's own recovery of recorded work.
   */
  enqueueRecorded(queue: string, key: string, payload: unknown): Promise<void>;
  /** Starts workers for `queue` in this process. A handler that throws is retried with a backoff. */
  process<Payload>(queue: string, handler: JobHandler<Payload>, options: { concurrency: number }): void;
  close(): Promise<void>;
}

/** What each queue implements; createJobQueue adds `enqueueRecorded` over it, once for both. */
export type JobQueueCore = Omit<JobQueue, 'enqueueRecorded'>;

/** The run counts of `queue` in `runs`, made on first use. */
export function runsOf(runs: Map<string, QueueRuns>, queue: string): QueueRuns {
  let counts = runs.get(queue);
  if (!counts) runs.set(queue, (counts = { completed: 0, failed: 0 }));
  return counts;
}

/** Delay before re-running a job whose handler threw `attempts` times in a row. */
export function errorRetryDelayMs(attempts: number): number {
  return Math.min(60_000, 500 * 2 ** Math.min(attempts, 7));
}
