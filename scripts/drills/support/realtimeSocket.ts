// A realtime WebSocket of a drill: a studio ticket from the instance it connects to, a subscribe to
// collections, and every event frame kept with the time it arrived (to match against the writes).
import WebSocket from 'ws';
import { must } from './http.ts';

export interface EventArrival {
  collection: string;
  action: string;
  itemId: string;
  at: number;
}

export interface RealtimeSocket {
  /** The instance it is connected to. */
  instance: string;
  /** When its subscribe was acknowledged (a ping after it came back): writes after this must reach it. */
  subscribedAt: number;
  events: EventArrival[];
  /** Item ids of the event frames received, per action. */
  seen(action: string): Set<string>;
  /** Set once the socket closed (the instance died, or the drill closed it). */
  closedAt: number | null;
  close(): void;
}

export async function openRealtimeSocket(base: string, instance: string, siteId: string, token: string, collections: string[]): Promise<RealtimeSocket> {
  const ticket = (await must(base, 'POST', '/realtime/ticket', { site: siteId, token })).data.ticket as string;
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/realtime?ticket=${encodeURIComponent(ticket)}`);
  const events: EventArrival[] = [];
  const state: RealtimeSocket = {
    instance,
    subscribedAt: 0,
    events,
    closedAt: null,
    seen(action) {
      return new Set(events.filter((event) => event.action === action).map((event) => event.itemId));
    },
    close() {
      socket.close();
    },
  };
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; collection: string; action: string; itemId: string };
    if (frame.type === 'event') events.push({ collection: frame.collection, action: frame.action, itemId: frame.itemId, at: Date.now() });
  });
  socket.on('close', () => (state.closedAt ??= Date.now()));
  // A socket whose instance dies errors; the close above records it.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => reject(new Error(`realtime upgrade refused on ${instance}: ${response.statusCode}`)));
    socket.once('error', reject);
  });
  for (const collection of collections) socket.send(JSON.stringify({ type: 'subscribe', collection }));
  // The server handles frames in order: the pong says the subscribes were handled.
  await new Promise<void>((resolve) => {
    socket.once('pong', () => resolve());
    socket.ping();
  });
  state.subscribedAt = Date.now();
  return state;
}

export interface FrameCoverage {
  /** Creates the socket had to receive. */
  expected: number;
  /** Of those, the ones it did not receive. */
  missing: string[];
  /** Create frames received more than once for one item. */
  duplicates: number;
  /** Milliseconds from a create's request to its frame on this socket. */
  latencies: number[];
}

/**
 * The creates this socket had to see: sent after its subscribe was acknowledged, and (for a socket
 * whose instance was killed) acknowledged before `until`.
 */
export function frameCoverage(socket: RealtimeSocket, creates: readonly { id: string; sentAt: number; ackedAt: number }[], until = Infinity): FrameCoverage {
  const arrivals = new Map<string, number[]>();
  for (const event of socket.events) {
    if (event.action !== 'create') continue;
    arrivals.set(event.itemId, [...(arrivals.get(event.itemId) ?? []), event.at]);
  }
  const due = creates.filter((create) => create.sentAt > socket.subscribedAt && create.ackedAt < until);
  const missing = due.filter((create) => !arrivals.has(create.id)).map((create) => create.id);
  const latencies = due.filter((create) => arrivals.has(create.id)).map((create) => arrivals.get(create.id)![0]! - create.sentAt);
  const duplicates = [...arrivals.values()].filter((times) => times.length > 1).length;
  return { expected: due.length, missing, duplicates, latencies };
}
