// This instance's realtime sessions: their subscriptions, fan-out of frames, heartbeats (a peer
// that misses a pong between two pings is dropped) and slow consumers (a socket whose unsent
// buffer grows past the bound is dropped rather than buffering without end).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { AppError } from '../../../domain/shared/appError.ts';
import { evaluateFilterNode, type FilterNode } from '../../query/index.ts';
import type { ConnectionLimiter } from './connectionLimiter.ts';
import { parseClientFrame, type ErrorFrame, type RealtimeMessage } from './realtimeFrames.ts';
import { CLOSE_CODES, REVOKE_MESSAGES, type RevokeReason } from './revocations.ts';
import type { RealtimeTicket } from './tickets.ts';

const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

export interface RealtimeSession {
  id: string;
  siteId: string;
  userId: string | null;
  socket: WebSocket;
  readable: ReadonlySet<string>;
  subscriptions: Map<string, FilterNode | null>;
  alive: boolean;
}

export interface RealtimeHub {
  /** Takes over an open socket whose connection slot `connectionId` was already acquired. */
  attach(socket: WebSocket, ticket: RealtimeTicket, connectionId: string): RealtimeSession;
  deliver(message: RealtimeMessage): void;
  sessionCount(siteId?: string): number;
  close(): void;
}

export function createRealtimeHub(options: { logger: Logger; limiter: ConnectionLimiter; heartbeatMs: number; maxBufferedBytes: number }): RealtimeHub {
  const { logger, limiter } = options;
  const bySite = new Map<string, Set<RealtimeSession>>();

  /**
   * A consumer is slow when what earlier deliveries sent it is still unsent past the bound: it is
   * dropped before anything more is queued. (A burst within one delivery is not held against it.)
   */
  function keepUp(session: RealtimeSession): boolean {
    const { socket } = session;
    if (socket.readyState !== WebSocket.OPEN) return false;
    if (socket.bufferedAmount <= options.maxBufferedBytes) return true;
    logger.warn({ siteId: session.siteId, sessionId: session.id, buffered: socket.bufferedAmount }, 'dropping a slow realtime consumer');
    socket.terminate();
    return false;
  }

  function send(session: RealtimeSession, text: string): void {
    if (session.socket.readyState === WebSocket.OPEN) session.socket.send(text);
  }

  function sendError(session: RealtimeSession, frame: ErrorFrame): void {
    send(session, JSON.stringify(frame));
  }

  function onMessage(session: RealtimeSession, data: WebSocket.RawData, isBinary: boolean): void {
    const size = Array.isArray(data) ? data.reduce((total, part) => total + part.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
    if (isBinary || size > MAX_CLIENT_FRAME_BYTES) {
      sendError(session, { type: 'error', code: 'VALIDATION_FAILED', message: 'Frames are JSON text of at most 16 KiB' });
      return;
    }
    try {
      const request = parseClientFrame(data.toString(), { now: new Date(), userId: session.userId });
      if (!session.readable.has(request.collection)) {
        sendError(session, {
          type: 'error',
          code: 'SUBSCRIBE_FORBIDDEN',
          message: `This ticket does not allow reading ${request.collection}`,
          collection: request.collection,
        });
        return;
      }
      session.subscriptions.set(request.collection, request.filter);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      sendError(session, { type: 'error', code: error.code, message: error.message, path: error.path });
    }
  }

  function remove(session: RealtimeSession): void {
    const set = bySite.get(session.siteId);
    if (!set?.delete(session)) return;
    if (set.size === 0) bySite.delete(session.siteId);
  }

  const heartbeat = setInterval(() => {
    const live: { siteId: string; connectionId: string }[] = [];
    for (const set of bySite.values()) {
      for (const session of set) {
        if (!session.alive) {
          session.socket.terminate();
          continue;
        }
        if (!keepUp(session)) continue;
        session.alive = false;
        session.socket.ping();
        live.push({ siteId: session.siteId, connectionId: session.id });
      }
    }
    limiter.refresh(live).catch((error: unknown) => logger.warn({ err: error }, 'realtime connection refresh failed'));
  }, options.heartbeatMs);
  heartbeat.unref();

  return {
    attach(socket, ticket, connectionId) {
      const session: RealtimeSession = {
        id: connectionId,
        siteId: ticket.siteId,
        userId: ticket.userId,
        socket,
        readable: new Set(ticket.collections),
        subscriptions: new Map(),
        alive: true,
      };
      let set = bySite.get(session.siteId);
      if (!set) bySite.set(session.siteId, (set = new Set()));
      set.add(session);
      socket.on('pong', () => {
        session.alive = true;
      });
      socket.on('message', (data, isBinary) => onMessage(session, data, isBinary));
      socket.on('close', () => remove(session));
      return session;
    },
    deliver(message) {
      const all = bySite.get(message.siteId);
      if (!all) return;
      const sessions = [...all].filter(keepUp);
      for (const frame of message.frames) {
        const text = JSON.stringify(frame);
        if (frame.type === 'notification') {
          for (const session of sessions) send(session, text);
          continue;
        }
        const signal = { action: frame.action, collection: frame.collection, itemId: frame.itemId };
        for (const session of sessions) {
          const filter = session.subscriptions.get(frame.collection);
          if (filter === undefined) continue;
          if (filter !== null && !evaluateFilterNode(filter, signal)) continue;
          send(session, text);
        }
      }
    },
    sessionCount(siteId) {
      if (siteId !== undefined) return bySite.get(siteId)?.size ?? 0;
      let total = 0;
      for (const set of bySite.values()) total += set.size;
      return total;
    },
    close() {
      clearInterval(heartbeat);
      for (const set of bySite.values()) for (const session of set) session.socket.terminate();
      bySite.clear();
    },
  };
}

/**
 * Ends a socket whose credential ended (close code 4401) or whose holder's permissions changed
 * (4403): an error frame saying which, then the close. The client asks for a new ticket.
 */
export function closeRevoked(socket: WebSocket, reason: RevokeReason): void {
  if (socket.readyState !== WebSocket.OPEN) return;
  const frame: ErrorFrame = { type: 'error', code: reason === 'unauthenticated' ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', message: REVOKE_MESSAGES[reason] };
  socket.send(JSON.stringify(frame));
  socket.close(CLOSE_CODES[reason], reason === 'unauthenticated' ? 'credential revoked' : 'permissions changed');
}

export function newConnectionId(): string {
  return randomUUID();
}
