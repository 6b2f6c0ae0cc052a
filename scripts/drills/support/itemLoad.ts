// Item writes under load, remembered by what the service acknowledged: each worker creates items of
// its own and updates them (a counter `n`), so every item has one writer and its acknowledged value
// is known. An unacknowledged write (no answer, a 5xx) may or may not have committed: it is kept as
// a possible value, never counted as lost. `verify` reads every acknowledged item back over HTTP.
import { randomUUID } from 'node:crypto';
import { call, StatusTally, type Answer } from './http.ts';

export interface TrackedItem {
  id: string;
  /** The last value of `n` the service acknowledged. */
  acknowledged: number;
  /** Values sent after it without an acknowledgement (the item may hold any of them). */
  unconfirmed: number[];
  /** When the create was sent and when its 201 came back (ms since the epoch). */
  sentAt: number;
  ackedAt: number;
}

export interface Target {
  name: string;
  base: string;
}

export interface ItemLoad {
  items: TrackedItem[];
  tally: StatusTally;
  /** Create and update attempts that got no 2xx. */
  unacknowledged(): number;
  /** One write (create or update) of worker `worker` with `token`, on `target`; answers its HTTP answer. */
  write(worker: number, token: string, target: Target): Promise<Answer>;
}

export function createItemLoad(siteId: string, collection: string, options: { updateShare?: number; bodyBytes?: number } = {}): ItemLoad {
  const items: TrackedItem[] = [];
  const byWorker = new Map<number, TrackedItem[]>();
  const tally = new StatusTally();
  let unacknowledged = 0;
  let counter = 0;
  const body = 'x'.repeat(options.bodyBytes ?? 200);

  return {
    items,
    tally,
    unacknowledged: () => unacknowledged,
    async write(worker, token, target) {
      const own = byWorker.get(worker) ?? [];
      byWorker.set(worker, own);
      counter += 1;
      const n = counter;
      if (own.length === 0 || Math.random() >= (options.updateShare ?? 0.4)) {
        const id = randomUUID();
        const sentAt = Date.now();
        const answer = await call(target.base, 'POST', `/items/${collection}`, { site: siteId, token, body: { id, title: `item ${n} by ${worker}`, n, body } });
        tally.add(answer.status);
        if (answer.status === 201) {
          const item = { id, acknowledged: n, unconfirmed: [], sentAt, ackedAt: Date.now() };
          items.push(item);
          own.push(item);
        } else {
          unacknowledged += 1;
        }
        return answer;
      }
      const item = own[Math.floor(Math.random() * own.length)]!;
      const answer = await call(target.base, 'PATCH', `/items/${collection}/${item.id}`, { site: siteId, token, body: { n } });
      tally.add(answer.status);
      if (answer.status === 200) {
        item.acknowledged = n;
        item.unconfirmed = [];
      } else {
        unacknowledged += 1;
        item.unconfirmed.push(n);
      }
      return answer;
    },
  };
}

export interface WriteVerification {
  checked: number;
  /** Acknowledged items not found, or holding a value never sent after the acknowledged one. */
  lost: string[];
}

/** Reads every tracked item back (lists of 100 by id) and compares `n` with what was acknowledged. */
export async function verifyItems(base: string, siteId: string, token: string, collection: string, items: readonly TrackedItem[]): Promise<WriteVerification> {
  const lost: string[] = [];
  for (let from = 0; from < items.length; from += 100) {
    const batch = items.slice(from, from + 100);
    const filter = encodeURIComponent(JSON.stringify({ id: { _in: batch.map((item) => item.id) } }));
    const answer = await call(base, 'GET', `/items/${collection}?filter=${filter}&fields=id,n&limit=200`, { site: siteId, token });
    if (answer.status !== 200) throw new Error(`reading items back: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    const found = new Map<string, number>((answer.body.data as { id: string; n: number }[]).map((row) => [row.id, row.n]));
    for (const item of batch) {
      const value = found.get(item.id);
      if (value === undefined) lost.push(`${item.id}: acknowledged (n=${item.acknowledged}) but not found`);
      else if (value !== item.acknowledged && !item.unconfirmed.includes(value)) lost.push(`${item.id}: n=${value}, acknowledged ${item.acknowledged}`);
    }
  }
  return { checked: items.length, lost };
}
