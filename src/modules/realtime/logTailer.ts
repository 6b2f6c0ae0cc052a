// Drives realtime from committed events (item signals, notifications, and the revocations that end
// connections: ./revocations.ts). Two reads per wake-up (a commit's notification, or the
// polling fallback):
// - ahead: every event committed after the furthest one already sent, at once, even while an older
//   transaction elsewhere on the server is still open (the gap-safe log read would wait for it);
// - safe: the gap-safe log read (svc_read_all), which also returns an older transaction's events
//   that committed after newer ones were sent ahead; those are sent then, the rest skipped. While it
//   returns full batches nothing is read ahead, so a late transaction is sent whole before anything
//   newer (a batch may end inside it).
// So nothing is skipped, nothing sent twice, and latency is commit → notification → one query.
// With Redis one instance leads (the lock 'realtime-tailer', src/runtime/leaderElection.ts) and
// publishes for all; the cursor it reached is kept in Redis so a new leader continues where the last
// one stopped.
import type { Logger } from 'pino';
import { itemSignalOf } from '../../../domain/changeFeed/feedEntry.ts';
import { notificationFrameOf } from '../../../domain/changeFeed/notification.ts';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import { readAll, readLogHead, toStoredEvent, type EventRow, type GlobalCursor } from '../../../infra/eventstore/eventStore.ts';
import type { LogNotifier } from '../../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Redis } from '../../../infra/redis/redis.ts';
import { createLeaderSession } from '../../runtime/leaderElection.ts';
import type { RealtimeMessage, ServerFrame } from './realtimeFrames.ts';
import { revocationsOf } from './revocations.ts';

const BATCH_SIZE = 1_000;
/** With Redis, the instance holding this lock tails for every instance. */
const LEADER_LOCK = 'realtime-tailer';
/** Events sent ahead of the gap-safe cursor that are remembered to avoid sending them twice. */
const MAX_SENT_AHEAD = 200_000;
/** A new leader resumes from the last leader's cursor if it was written this recently. */
const RESUME_WINDOW_MS = 60_000;
/** How long a tailer without sessions keeps following after a socket was admitted (its upgrade ends well inside). */
const FOLLOW_AFTER_ADMISSION_MS = 60_000;

export interface LogTailer {
  /**
   * Called before a socket opens: makes sure the tailer follows the log from now on, so that every
   * event committed after the socket opened reaches it (an idle tailer reads the head first).
   */
  follow(): Promise<void>;
  stop(): Promise<void>;
}

/** Frames and revocations of a batch of events, grouped per site, in the order given. */
export function realtimeMessagesOf(events: readonly StoredEvent[]): RealtimeMessage[] {
  const bySite = new Map<string, RealtimeMessage>();
  for (const event of events) {
    let frame: ServerFrame | null = null;
    if (event.type === 'notification.published') {
      frame = notificationFrameOf(event);
    } else {
      const signal = itemSignalOf(event);
      if (signal) frame = { type: 'event', ...signal, payload: null };
    }
    const revocations = revocationsOf(event);
    if (!frame && revocations.length === 0) continue;
    let message = bySite.get(event.siteId);
    if (!message) bySite.set(event.siteId, (message = { siteId: event.siteId, frames: [] }));
    if (frame) message.frames.push(frame);
    if (revocations.length > 0) (message.revocations ??= []).push(...revocations);
  }
  return [...bySite.values()];
}

function after(a: GlobalCursor, b: GlobalCursor): boolean {
  const ta = BigInt(a.txId);
  const tb = BigInt(b.txId);
  return ta > tb || (ta === tb && a.position > b.position);
}

export interface LogTailerOptions {
  database: Database;
  notifier: LogNotifier;
  logger: Logger;
  pollMs: number;
  publish(messages: RealtimeMessage[]): Promise<void>;
  /** Redis mode: lead through the lock `realtime-tailer`, keep the cursor under `cursorKey`. */
  leadership?: { redis: Redis; cursorKey: string; retryMs: number };
  /**
   * Without Redis: whether this instance has realtime sessions. With none (and no socket admitted
   * lately) the tailer reads nothing: a commit costs it no query. With Redis the leader publishes for
   * every instance's sessions, so it always follows.
   */
  hasSessions?: () => boolean;
}

export function startLogTailer(options: LogTailerOptions): LogTailer {
  const { database, logger, leadership } = options;
  /** Everything up to here was read gap-safely. */
  let safe: GlobalCursor | null = null;
  /** The furthest event sent ahead of `safe`. */
  let ahead: GlobalCursor | null = null;
  /** Ids of events sent ahead and not yet passed by `safe`. */
  const sentAhead = new Set<string>();
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  const leaderSession = leadership
    ? createLeaderSession({
        database,
        onLost: () => {
          // Lost the lock with its connection: stop leading; another instance (or we) will take over.
          safe = null;
        },
      })
    : null;
  let admittedAt = -Infinity;

  function idle(): boolean {
    return !leadership && options.hasSessions !== undefined && !options.hasSessions() && Date.now() - admittedAt > FOLLOW_AFTER_ADMISSION_MS;
  }

  /** Without Redis every instance tails for itself; with it only the lock holder does. */
  function leading(): boolean {
    return !leaderSession || leaderSession.leads(LEADER_LOCK);
  }

  async function lead(): Promise<boolean> {
    if (!leadership || !leaderSession) return true;
    if (leaderSession.leads(LEADER_LOCK)) return true;
    if (!(await leaderSession.lead(LEADER_LOCK))) return false;
    // Continue where the last leader stopped, unless that was long ago (stale signals help no one).
    const stored = await leadership.redis.get(leadership.cursorKey).catch(() => null);
    const last = stored ? (JSON.parse(stored) as { cursor: GlobalCursor; at: number }) : null;
    safe = last && Date.now() - last.at < RESUME_WINDOW_MS ? last.cursor : null;
    ahead = null;
    sentAhead.clear();
    return true;
  }

  async function readAhead(from: GlobalCursor): Promise<StoredEvent[]> {
    const rows = await database.query<EventRow>(sql`SELECT * FROM svc_read_committed_after(${from.txId}::xid8, ${from.position}, ${BATCH_SIZE})`);
    return rows.map(toStoredEvent);
  }

  async function step(): Promise<void> {
    if (idle()) {
      // Nobody to tell: drop the cursor; the next admitted socket starts from the head.
      safe = null;
      ahead = null;
      sentAhead.clear();
      return;
    }
    if (!(await lead())) return;
    safe ??= await readLogHead(database);
    for (;;) {
      if (stopped) return;
      const gapSafe = await readAll(database, safe, BATCH_SIZE);
      const late = gapSafe.filter((event) => !sentAhead.delete(event.eventId));
      if (gapSafe.length > 0) safe = { txId: gapSafe.at(-1)!.txId, position: gapSafe.at(-1)!.position };
      if (ahead && !after(ahead, safe)) ahead = null;
      // A full gap-safe batch may have stopped inside an older transaction that committed late: the
      // rest of it goes out before anything newer, so nothing is read ahead until the batch runs short.
      const fresh = gapSafe.length < BATCH_SIZE ? await readAhead(ahead ?? safe) : [];
      for (const event of fresh) sentAhead.add(event.eventId);
      if (fresh.length > 0) ahead = { txId: fresh.at(-1)!.txId, position: fresh.at(-1)!.position };
      if (sentAhead.size > MAX_SENT_AHEAD) sentAhead.clear(); // at worst a signal is sent twice
      const messages = realtimeMessagesOf([...late, ...fresh]);
      if (messages.length > 0) await options.publish(messages);
      if (leadership) {
        await leadership.redis.set(leadership.cursorKey, JSON.stringify({ cursor: safe, at: Date.now() }), 'PX', RESUME_WINDOW_MS).catch(() => undefined);
      }
      if (gapSafe.length < BATCH_SIZE && fresh.length < BATCH_SIZE) return;
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
    async follow() {
      admittedAt = Date.now();
      if (leadership || safe !== null) return;
      const head = await readLogHead(database);
      if (safe === null) safe = head;
    },
    async stop() {
      stopped = true;
      offEvents();
      clearInterval(poll);
      await running;
      await leaderSession?.resign();
    },
  };
}
