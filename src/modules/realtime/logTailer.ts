// Drives realtime from committed events: wakes on the log's notifications, reads what was committed
// after its cursor (gap-safe, in log order) and publishes item signals and notifications per site.
// When the log holds committed events that the gap-safe read cannot return yet (an older
// transaction is still open), it retries within milliseconds instead of waiting for the next poll.
// With Redis one instance leads (a Postgres advisory lock) and publishes for all; the cursor it
// reached is kept in Redis so a new leader continues where the last one stopped.
import type pg from 'pg';
import type { Logger } from 'pino';
import { itemSignalOf } from '../../../domain/changeFeed/feedEntry.ts';
import { notificationFrameOf } from '../../../domain/changeFeed/notification.ts';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import { readAll, readLogHead, type GlobalCursor } from '../../../infra/eventstore/eventStore.ts';
import type { LogNotifier } from '../../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Redis } from '../../../infra/redis/redis.ts';
import { advisoryKey } from '../../runtime/projectionRunner.ts';
import type { RealtimeMessage, ServerFrame } from './realtimeFrames.ts';

const BATCH_SIZE = 1_000;
const MAX_GAP_RETRY_MS = 64;
/** A new leader resumes from the last leader's cursor if it was written this recently. */
const RESUME_WINDOW_MS = 60_000;

export interface LogTailer {
  stop(): Promise<void>;
}

/** Frames of a batch of events, grouped per site, in log order. */
export function realtimeMessagesOf(events: readonly StoredEvent[]): RealtimeMessage[] {
  const bySite = new Map<string, ServerFrame[]>();
  for (const event of events) {
    let frame: ServerFrame | null = null;
    if (event.type === 'notification.published') {
      frame = notificationFrameOf(event);
    } else {
      const signal = itemSignalOf(event);
      if (signal) frame = { type: 'event', ...signal, payload: null };
    }
    if (!frame) continue;
    let frames = bySite.get(event.siteId);
    if (!frames) bySite.set(event.siteId, (frames = []));
    frames.push(frame);
  }
  return [...bySite].map(([siteId, frames]) => ({ siteId, frames }));
}

export interface LogTailerOptions {
  database: Database;
  notifier: LogNotifier;
  logger: Logger;
  pollMs: number;
  publish(messages: RealtimeMessage[]): Promise<void>;
  /** Redis mode: lead through an advisory lock, keep the cursor under `cursorKey`. */
  leadership?: { redis: Redis; cursorKey: string; retryMs: number };
}

export function startLogTailer(options: LogTailerOptions): LogTailer {
  const { database, logger, leadership } = options;
  let cursor: GlobalCursor | null = null;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let lockClient: pg.PoolClient | null = null;
  let wakeFromGap: (() => void) | null = null;

  /** Without Redis every instance tails for itself; with it only the lock holder does. */
  function leading(): boolean {
    return !leadership || lockClient !== null;
  }

  async function lead(): Promise<boolean> {
    if (!leadership) return true;
    if (lockClient) return true;
    const client = await database.connect();
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [advisoryKey('realtime-tailer')]);
    if (!result.rows[0]?.locked) {
      client.release();
      return false;
    }
    client.on('error', () => {
      // Lost the lock with the connection: stop leading; another instance (or we) will take over.
      if (lockClient === client) lockClient = null;
      cursor = null;
      client.release(true);
    });
    lockClient = client;
    // Continue where the last leader stopped, unless that was long ago (stale signals help no one).
    const stored = await leadership.redis.get(leadership.cursorKey).catch(() => null);
    const last = stored ? (JSON.parse(stored) as { cursor: GlobalCursor; at: number }) : null;
    cursor = last && Date.now() - last.at < RESUME_WINDOW_MS ? last.cursor : null;
    return true;
  }

  async function step(): Promise<void> {
    if (!(await lead())) return;
    cursor ??= await readLogHead(database);
    let gapDelay = 1;
    for (;;) {
      if (stopped) return;
      const batch = await readAll(database, cursor, BATCH_SIZE);
      if (batch.length > 0) {
        gapDelay = 1;
        const last = batch.at(-1)!;
        cursor = { txId: last.txId, position: last.position };
        const messages = realtimeMessagesOf(batch);
        await options.publish(messages);
        if (leadership) {
          await leadership.redis.set(leadership.cursorKey, JSON.stringify({ cursor, at: Date.now() }), 'PX', RESUME_WINDOW_MS).catch(() => undefined);
        }
        if (batch.length === BATCH_SIZE) continue;
      }
      const [pending] = await database.query<{ pending: boolean }>(sql`SELECT svc_log_has_after(${cursor.txId}::xid8, ${cursor.position}) AS pending`);
      if (!pending?.pending) return;
      // Committed events wait behind an open older transaction: look again very soon.
      const delay = gapDelay;
      gapDelay = Math.min(gapDelay * 2, MAX_GAP_RETRY_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          wakeFromGap = null;
          resolve();
        }
        wakeFromGap = done;
      });
    }
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await step();
        } catch (error) {
          if (!stopped) logger.error({ err: error }, 'realtime log tailer step failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  }

  // Commits wake the leader; the timer is the polling fallback, and how a standby tries to lead.
  const offEvents = options.notifier.on('svc_events', () => {
    if (leading()) kick();
  });
  const poll = setInterval(kick, leadership ? Math.min(options.pollMs, leadership.retryMs) : options.pollMs);
  poll.unref();
  kick();

  return {
    async stop() {
      stopped = true;
      offEvents();
      clearInterval(poll);
      wakeFromGap?.();
      await running;
      if (lockClient) {
        await lockClient.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        lockClient.release();
        lockClient = null;
      }
    },
  };
}
