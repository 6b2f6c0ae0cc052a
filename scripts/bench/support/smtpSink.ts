// A fast local SMTP server for the benchmarks: `smtp-server` on 127.0.0.1 that accepts everything and
// counts what arrives (messages, envelope recipients, bytes) without parsing a message. It runs on a
// worker thread of its own, so that receiving takes no turn of the event loop being measured (a real
// relay is another process); the counters live in shared memory and are read without a message.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface SmtpSinkCounts {
  /** Messages received in full (after the final dot of DATA). */
  messages: number;
  /** Envelope recipients of those messages. */
  recipients: number;
  /** Distinct envelope recipients: fewer than `recipients` when an address got a message twice. */
  distinctRecipients: number;
  /** Recipients whose local part starts with one of the sink's `forbiddenPrefixes`: addresses that must never get a message. */
  forbidden: number;
  bytes: number;
  connections: number;
  /** Epoch milliseconds of the first and the last message received (0 before the first). */
  firstMessageAt: number;
  lastMessageAt: number;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  counts(): SmtpSinkCounts;
  /** Forgets the first and last message times (the counts stay): a bench's later send times its own messages. */
  resetClock(): void;
  close(): Promise<void>;
}

const COUNTERS = ['messages', 'recipients', 'distinctRecipients', 'forbidden', 'bytes', 'connections', 'firstMessageAt', 'lastMessageAt'] as const;

// The worker, as plain JavaScript (an eval'd worker runs no TypeScript loader). It writes the
// counters in COUNTERS' order; `messages` last, so a reader that sees a message sees its recipients.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { SMTPServer } = require(workerData.smtpServerPath);
const counters = new BigInt64Array(workerData.counters);
const [MESSAGES, RECIPIENTS, DISTINCT, FORBIDDEN, BYTES, CONNECTIONS, FIRST_AT, LAST_AT] = [0, 1, 2, 3, 4, 5, 6, 7];
const forbiddenPrefixes = workerData.forbiddenPrefixes;
const seen = new Set();

function countMessage(rcptTo, bytes) {
  for (const { address } of rcptTo) {
    const normalized = address.toLowerCase();
    if (!seen.has(normalized)) {
      seen.add(normalized);
      Atomics.add(counters, DISTINCT, 1n);
    }
    if (forbiddenPrefixes.some((prefix) => normalized.startsWith(prefix))) Atomics.add(counters, FORBIDDEN, 1n);
  }
  const now = BigInt(Date.now());
  Atomics.compareExchange(counters, FIRST_AT, 0n, now);
  Atomics.store(counters, LAST_AT, now);
  Atomics.add(counters, RECIPIENTS, BigInt(rcptTo.length));
  Atomics.add(counters, BYTES, BigInt(bytes));
  Atomics.add(counters, MESSAGES, 1n);
}

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  // A pooled client keeps its connections open: closing waits this long for them, not 30 s.
  closeTimeout: 1000,
  onConnect(session, callback) {
    Atomics.add(counters, CONNECTIONS, 1n);
    callback();
  },
  onData(stream, session, callback) {
    let bytes = 0;
    stream.on('data', (chunk) => { bytes += chunk.length; });
    stream.on('end', () => {
      countMessage(session.envelope.rcptTo, bytes);
      callback();
    });
  },
});
server.on('error', (error) => parentPort.postMessage({ error: String(error && error.message || error) }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => parentPort.postMessage({ closed: true }));
});
`;

/**
 * Starts the sink. `forbiddenPrefixes` (lower case, e.g. `suppressed-`) name addresses that must get
 * nothing: the sink counts the recipients that match any of them, so a bench can check a filter.
 */
export async function startSmtpSink(options: { forbiddenPrefixes?: string[] } = {}): Promise<SmtpSink> {
  const counters = new BigInt64Array(new SharedArrayBuffer(COUNTERS.length * BigInt64Array.BYTES_PER_ELEMENT));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      counters: counters.buffer,
      forbiddenPrefixes: (options.forbiddenPrefixes ?? []).map((prefix) => prefix.toLowerCase()),
      // Resolved here: an eval'd worker resolves bare names from the working directory, not this file.
      smtpServerPath: createRequire(import.meta.url).resolve('smtp-server'),
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { port?: number; error?: string }) => {
      if (message.port) resolve(message.port);
      else reject(new Error(`the SMTP sink did not start: ${message.error ?? 'no port'}`));
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    counts() {
      // `messages` first: the worker adds to it last.
      const read = (name: (typeof COUNTERS)[number]) => Number(Atomics.load(counters, COUNTERS.indexOf(name)));
      const messages = read('messages');
      return {
        messages,
        recipients: read('recipients'),
        distinctRecipients: read('distinctRecipients'),
        forbidden: read('forbidden'),
        bytes: read('bytes'),
        connections: read('connections'),
        firstMessageAt: read('firstMessageAt'),
        lastMessageAt: read('lastMessageAt'),
      };
    },
    resetClock() {
      Atomics.store(counters, COUNTERS.indexOf('firstMessageAt'), 0n);
      Atomics.store(counters, COUNTERS.indexOf('lastMessageAt'), 0n);
    },
    async close() {
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: { closed?: boolean }) => {
          if (message.closed) resolve();
        });
      });
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}
