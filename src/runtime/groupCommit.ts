// Group commit: writes of one site that arrive while that site's transactions are busy wait, and
// then share one transaction, so a burst of small writes pays for one BEGIN, one COMMIT and one
// multi-row statement per read model instead of one of each per write. A write that arrives while
// fewer than `maxInFlight` transactions of its site are running starts at once, alone: no timer,
// no added latency when the service is idle. A write big enough to gain nothing from company (a bulk
// create) never waits: it runs at once in its own transaction, beside the site's others.

export type WriteOutcome<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

/**
 * Runs `writes` in one transaction and returns one outcome per write, in order, once it has
 * committed. A write refused on its own (its id is taken, say) gets `ok: false` and the others go on
 * without it; throwing fails the transaction, and each write is then run again alone, so a write
 * never fails for another's fault.
 */
export type JointWrite<Write, Result> = (siteId: string, writes: Write[]) => Promise<WriteOutcome<Result>[]>;

export interface GroupCommitOptions<Write> {
  /** Transactions of one site running at a time (default 2). */
  maxInFlight?: number;
  /** The weight a joint transaction may reach by taking more waiting writes (default 1000). */
  maxWeight?: number;
  /** A write's weight, e.g. its event count (default 1). */
  weigh?: (write: Write) => number;
  /** A write of this weight or more runs at once in its own transaction (default: maxWeight). */
  soloWeight?: number;
}

interface Waiting<Write, Result> {
  write: Write;
  weight: number;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

interface SiteQueue<Write, Result> {
  waiting: Waiting<Write, Result>[];
  inFlight: number;
}

export interface GroupCommit<Write, Result> {
  submit(siteId: string, write: Write): Promise<Result>;
  /** Writes of the site waiting for a transaction (not those running). */
  waiting(siteId: string): number;
}

export function createGroupCommit<Write, Result>(
  jointWrite: JointWrite<Write, Result>,
  options: GroupCommitOptions<Write> = {},
): GroupCommit<Write, Result> {
  const maxInFlight = options.maxInFlight ?? 2;
  const maxWeight = options.maxWeight ?? 1000;
  const soloWeight = options.soloWeight ?? maxWeight;
  const weigh = options.weigh ?? (() => 1);
  const sites = new Map<string, SiteQueue<Write, Result>>();

  /** The longest run of waiting writes within the weight limit (always at least one). */
  function takeBatch(queue: SiteQueue<Write, Result>): Waiting<Write, Result>[] {
    let weight = queue.waiting[0]!.weight;
    let count = 1;
    while (count < queue.waiting.length && weight + queue.waiting[count]!.weight <= maxWeight) {
      weight += queue.waiting[count]!.weight;
      count += 1;
    }
    return queue.waiting.splice(0, count);
  }

  function pump(siteId: string, queue: SiteQueue<Write, Result>): void {
    while (queue.inFlight < maxInFlight && queue.waiting.length > 0) {
      const batch = takeBatch(queue);
      queue.inFlight += 1;
      void run(siteId, batch).finally(() => {
        queue.inFlight -= 1;
        if (queue.inFlight === 0 && queue.waiting.length === 0) sites.delete(siteId);
        else pump(siteId, queue);
      });
    }
  }

  async function run(siteId: string, batch: Waiting<Write, Result>[]): Promise<void> {
    try {
      settle(batch, await jointWrite(siteId, batch.map((entry) => entry.write)));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const entry of batch) {
        try {
          settle([entry], await jointWrite(siteId, [entry.write]));
        } catch (alone) {
          entry.reject(alone);
        }
      }
    }
  }

  function settle(batch: Waiting<Write, Result>[], outcomes: WriteOutcome<Result>[]): void {
    for (const [index, entry] of batch.entries()) {
      const outcome = outcomes[index]!;
      if (outcome.ok) entry.resolve(outcome.value);
      else entry.reject(outcome.error);
    }
  }

  return {
    submit(siteId, write) {
      return new Promise<Result>((resolve, reject) => {
        const weight = weigh(write);
        if (weight >= soloWeight) {
          void run(siteId, [{ write, weight, resolve, reject }]);
          return;
        }
        let queue = sites.get(siteId);
        if (!queue) sites.set(siteId, (queue = { waiting: [], inFlight: 0 }));
        queue.waiting.push({ write, weight, resolve, reject });
        pump(siteId, queue);
      });
    },
    waiting: (siteId) => sites.get(siteId)?.waiting.length ?? 0,
  };
}
