// The flows bench's writer (scripts/bench/flows.ts, figure 1): POST /items/<collection> at a steady
// rate, open-loop (a timer issues each write at its time, whether or not the earlier ones answered).
// It runs on a worker thread of its own, so that the service's busy event loop in the main thread
// never delays a write's start (a real client is another process); it records, per write, when it
// was due, sent and answered (epoch milliseconds, sub-millisecond), its status and the new item's id.
// Progress counters live in shared memory and are read without a message.
import { Worker } from 'node:worker_threads';

export interface WriteRecord {
  index: number;
  /** Epoch milliseconds: when the rate says it is due, when fetch was called, when the answer was read. */
  dueAt: number;
  sentAt: number;
  answeredAt: number;
  status: number;
  itemId: string | null;
  error: string | null;
}

export interface WriteLoadOptions {
  /** `…/api/v1` of the service. */
  base: string;
  token: string;
  siteId: string;
  collection: string;
  /** Writes per second, and for how long. */
  rate: number;
  seconds: number;
  /** Added to every title, so that a warm-up's items and the measured ones are told apart. */
  label: string;
}

export interface WriteLoad {
  /** Writes sent and answered so far (any status), and those that failed (not 201, or no answer). */
  progress(): { sent: number; answered: number; failed: number };
  /** Resolves with every write once all have answered. */
  done: Promise<WriteRecord[]>;
  /** Milliseconds the writer's thread was busy (its event loop utilization), a stand-in for its CPU; known once `done` resolved. */
  busyMs(): number;
}

const COUNTERS = ['sent', 'answered', 'failed'] as const;

// Plain JavaScript: an eval'd worker runs no TypeScript loader. Due times are absolute (start + i /
// rate), so a late timer issues the writes it owes at once instead of drifting the rate down.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { base, token, siteId, collection, rate, seconds, label } = workerData;
const counters = new Int32Array(workerData.counters);
const [SENT, ANSWERED, FAILED] = [0, 1, 2];
const epoch = () => performance.timeOrigin + performance.now();
const total = Math.round(rate * seconds);
const spacingMs = 1000 / rate;
const writes = [];
const inFlight = [];
const startAt = epoch() + 20;
let next = 0;

async function write(index, dueAt) {
  const record = { index, dueAt, sentAt: epoch(), answeredAt: 0, status: 0, itemId: null, error: null };
  Atomics.add(counters, SENT, 1);
  try {
    const response = await fetch(base + '/items/' + collection, {
      method: 'POST',
      headers: { authorization: 'Bearer ' + token, 'x-svc-site': siteId, 'content-type': 'application/json' },
      body: JSON.stringify({ title: label + ' write ' + index, rating: index % 5 }),
    });
    const text = await response.text();
    record.status = response.status;
    if (response.status === 201) record.itemId = JSON.parse(text).data.id;
    else record.error = text.slice(0, 500);
  } catch (error) {
    record.error = String((error && error.message) || error);
  }
  record.answeredAt = epoch();
  if (record.status !== 201) Atomics.add(counters, FAILED, 1);
  Atomics.add(counters, ANSWERED, 1);
  writes.push(record);
}

function pump() {
  const now = epoch();
  while (next < total && startAt + next * spacingMs <= now) {
    inFlight.push(write(next, startAt + next * spacingMs));
    next += 1;
  }
  if (next < total) {
    setTimeout(pump, Math.max(0, startAt + next * spacingMs - epoch()));
    return;
  }
  Promise.all(inFlight).then(() => {
    writes.sort((a, b) => a.index - b.index);
    parentPort.postMessage({ writes, busyMs: performance.eventLoopUtilization().active });
  });
}
setTimeout(pump, Math.max(0, startAt - epoch()));
`;

/** Starts the writes at once; `done` resolves when the last one has answered. */
export function startWriteLoad(options: WriteLoadOptions): WriteLoad {
  const counters = new Int32Array(new SharedArrayBuffer(COUNTERS.length * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...options, counters: counters.buffer } });
  let busyMs = 0;
  const done = new Promise<WriteRecord[]>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { writes: WriteRecord[]; busyMs: number }) => {
      // Measured inside the worker: its ELU read from this thread stays at zero on Node 20.
      busyMs = message.busyMs;
      void worker.terminate();
      resolve(message.writes);
    });
  });
  return {
    progress() {
      const read = (name: (typeof COUNTERS)[number]) => Atomics.load(counters, COUNTERS.indexOf(name));
      return { sent: read('sent'), answered: read('answered'), failed: read('failed') };
    },
    done,
    busyMs: () => Math.round(busyMs),
  };
}
