// Wakes readers of the log when a transaction that appended events commits (LISTEN/NOTIFY on one
// dedicated connection), and when a projection checkpoint moves. Readers keep a polling fallback,
// so a lost notification only delays, never stalls.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { releaserOf } from '../postgres/database.ts';

// svc_schema: a site's content schema changed (payload: the site id); schema caches drop that site.
// svc_access: something that changes a site's effective permissions committed (payload: the site id).
// svc_identity: a site's users, roles or sessions changed (payload: the site id); token checks drop that site.
export type LogChannel = 'svc_events' | 'svc_checkpoints' | 'svc_schema' | 'svc_access' | 'svc_identity';
const CHANNELS: LogChannel[] = ['svc_events', 'svc_checkpoints', 'svc_schema', 'svc_access', 'svc_identity'];

export interface LogNotifier {
  /** Resolves on the next notification of `channel`, or after `timeoutMs`, whichever comes first. */
  next(channel: LogChannel, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Calls `listener` with each notification's payload (the site id for svc_events). */
  on(channel: LogChannel, listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}

export async function createLogNotifier(connect: () => Promise<pg.PoolClient>): Promise<LogNotifier> {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  let listening: { connection: pg.PoolClient; release: (destroy?: boolean) => void } | null = null;
  let closed = false;

  async function listen(): Promise<void> {
    if (closed) return;
    let release: ((destroy?: boolean) => void) | null = null;
    try {
      const connection = await connect();
      const entry = { connection, release: (release = releaserOf(connection)) };
      connection.on('notification', (message) => emitter.emit(message.channel, message.payload ?? ''));
      connection.on('error', () => {
        entry.release(true);
        // Only the live connection's first error listens again (one during setup fails the setup).
        if (listening !== entry) return;
        listening = null;
        setTimeout(() => void listen(), 500).unref();
      });
      for (const channel of CHANNELS) await connection.query(`LISTEN ${channel}`);
      listening = entry;
    } catch {
      release?.(true);
      setTimeout(() => void listen(), 500).unref();
    }
  }
  await listen();

  return {
    next(channel, timeoutMs, signal) {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          emitter.off(channel, done);
          emitter.off('close', done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        emitter.on(channel, done);
        emitter.on('close', done);
        signal?.addEventListener('abort', done);
      });
    },
    on(channel, listener) {
      emitter.on(channel, listener);
      return () => emitter.off(channel, listener);
    },
    async close() {
      closed = true;
      emitter.emit('close');
      if (listening) {
        const { connection, release } = listening;
        listening = null;
        await connection.query('UNLISTEN *').catch(() => undefined);
        release();
      }
    },
  };
}
