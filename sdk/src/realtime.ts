// `client.realtime.subscribe(collection, filter, onEvent)`: the realtime channel (docs/change-feed.md,
// "Realtime"). Each subscription has a socket of its own (the service keeps one filter per collection
// and socket): a ticket first, then the WebSocket and the subscribe frame. When the socket drops
// (the server restarts, the network goes, the credential is revoked) it asks for a new ticket and
// connects again with backoff, subscribes again, and tells the handler `resync`: events are signals,
// so what changed meanwhile is refetched by whoever shows it.
import type { Client } from 'openapi-fetch';
import { SvcError } from './errors.ts';
import type { paths } from './generated/openapi.ts';

/** A change of an item of the collection: a signal only (read the item over REST for its data). */
export interface RealtimeChange {
  type: 'event';
  collection: string;
  action: 'create' | 'update' | 'delete';
  itemId: string;
}

/** Sent after the socket came back: changes made while it was away were not signalled. */
export interface RealtimeResync {
  type: 'resync';
  collection: string;
}

export type RealtimeSignal = RealtimeChange | RealtimeResync;

/** The realtime channel's filter: the query language over `action`, `collection` and `itemId`. */
export type RealtimeFilter = Record<string, unknown>;

export interface RealtimeSubscription {
  /**
   * Resolves once the first subscribe frame is sent (the service acknowledges none: a refusal comes
   * later, to `onError`); rejects when no ticket can be had for the client's credential.
   */
  readonly ready: Promise<void>;
  /** Closes the socket for good. */
  close(): void;
}

export interface RealtimeOptions {
  /** Errors that do not end the subscription (a failed reconnect, a malformed frame); it keeps trying. */
  onError?: (error: unknown) => void;
  /** The first wait before connecting again (default 500 ms), doubled up to `maxDelayMs` (default 30 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface Realtime {
  subscribe(collection: string, filter: RealtimeFilter | undefined, onEvent: (signal: RealtimeSignal) => void, options?: RealtimeOptions): RealtimeSubscription;
}

/** The WebSocket of the platform (Node 22 and browsers have one), or the one given. */
type WebSocketConstructor = new (url: string) => WebSocket;

/** Refusals that another attempt would not change: the subscription ends with them. */
const FINAL_CODES = new Set(['SUBSCRIBE_FORBIDDEN', 'VALIDATION_FAILED']);

export function createRealtime(api: Client<paths>, baseUrl: string, WebSocketImpl: WebSocketConstructor | undefined): Realtime {
  const socketUrl = (ticket: string) => `${baseUrl.replace(/^http/, 'ws')}/api/v1/realtime?ticket=${encodeURIComponent(ticket)}`;

  return {
    subscribe(collection, filter, onEvent, options = {}) {
      const Socket = WebSocketImpl ?? globalThis.WebSocket;
      if (!Socket) throw new Error('No WebSocket here: pass one as createSvcClient({ WebSocket })');
      const minDelay = options.minDelayMs ?? 500;
      const maxDelay = options.maxDelayMs ?? 30_000;
      let socket: WebSocket | null = null;
      let closed = false;
      let opened = false;
      let failures = 0;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let settle!: { resolve: () => void; reject: (error: unknown) => void };
      const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      // A handler that only awaits ready later must not see an unhandled rejection meanwhile.
      ready.catch(() => undefined);

      const end = (error?: unknown) => {
        closed = true;
        if (timer) clearTimeout(timer);
        socket?.close();
        if (error !== undefined) {
          settle.reject(error);
          options.onError?.(error);
        }
      };

      const reconnectLater = () => {
        if (closed) return;
        const delay = Math.min(maxDelay, minDelay * 2 ** failures);
        failures += 1;
        // Half fixed, half random: clients that lost the same server do not all come back at once.
        timer = setTimeout(connect, delay / 2 + Math.random() * (delay / 2));
      };

      async function connect(): Promise<void> {
        timer = null;
        let ticket: string;
        try {
          const { data } = await api.POST('/api/v1/realtime/ticket');
          ticket = data!.data.ticket;
        } catch (error) {
          // A credential that is refused will be refused again: the subscription ends.
          if (error instanceof SvcError && (error.status === 401 || error.status === 403)) return end(error);
          options.onError?.(error);
          return reconnectLater();
        }
        if (closed) return;
        const current = new Socket(socketUrl(ticket));
        socket = current;
        current.onopen = () => {
          current.send(JSON.stringify({ type: 'subscribe', collection, ...(filter ? { filter } : {}) }));
          failures = 0;
          if (opened) onEvent({ type: 'resync', collection });
          opened = true;
          settle.resolve();
        };
        current.onmessage = (message: MessageEvent) => {
          let frame: { type?: string; collection?: string; action?: RealtimeChange['action']; itemId?: string; code?: string; message?: string };
          try {
            frame = JSON.parse(String(message.data));
          } catch (error) {
            options.onError?.(error);
            return;
          }
          if (frame.type === 'event' && frame.collection === collection) {
            onEvent({ type: 'event', collection, action: frame.action!, itemId: frame.itemId! });
          } else if (frame.type === 'error' && frame.code && FINAL_CODES.has(frame.code)) {
            end(new SvcError(400, [{ code: frame.code, message: frame.message ?? frame.code, path: [], extensions: {} }], 'realtime'));
          }
        };
        current.onclose = () => {
          if (socket === current) socket = null;
          reconnectLater();
        };
      }

      void connect();
      return { ready, close: () => end() };
    },
  };
}
