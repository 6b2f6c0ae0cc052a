// `client.feed.consume(...)`: a change-feed consumer (docs/change-feed.md). It long-polls GET
// /cdc/events, hands each page to the handler, and only once the handler has finished moves its
// position: on a pull subscription by `ack` (so another process, or this one after a crash, resumes
// from the last acknowledged entry), or in the consumer's own store. A handler that fails stops the
// consumer with the page unacknowledged: it is read again, from its first entry, on the next start.
import type { Client } from 'openapi-fetch';
import { SvcError } from './errors.ts';
import type { paths } from './generated/openapi.ts';

/** One entry of the feed (the envelope of docs/change-feed.md). */
export interface FeedEntry {
  id: string;
  type: string;
  cursor: string;
  sequence: number;
  site: string;
  occurredAt: string;
  collection: string | null;
  itemId: string | null;
  actor: { kind: string; id: string | null };
  requestId: string | null;
  sourceEvent: string;
  snapshot: Record<string, unknown> | null;
  changedKeys: string[];
}

/** Where a consumer without a pull subscription keeps its position (e.g. beside the data it writes). */
export interface CursorStore {
  load(): Promise<string | null>;
  save(cursor: string): Promise<void>;
}

export interface ConsumeOptions {
  /** A pull subscription's id: its filters and acknowledged cursor are the consumer's (needs the right to read it and `cdc:subscribe`). */
  subscription?: string;
  /** Without a subscription: which entries (CSV lists of the query). */
  filters?: { collections?: string[]; operations?: string[] };
  /** Without a subscription, where to start when the store holds no cursor: `start` (oldest retained, default), `end`, or a cursor. */
  from?: 'start' | 'end' | string;
  /** Without a subscription: where the position is kept (default: memory, lost with the process). */
  store?: CursorStore;
  /** Entries per page, 1 to 500 (default 100). */
  batch?: number;
  /** Long-poll seconds when nothing is new, 0 to 25 (default 25). */
  wait?: number;
  /** The handler: the consumer moves past the page once it resolves. */
  onEntries: (entries: FeedEntry[]) => Promise<void> | void;
  /**
   * A position older than the feed's retention (410 CURSOR_EXPIRED): `fail` (default) stops with the
   * error, since entries were lost; `earliest` goes on from the oldest retained entry and tells `onGap`
   * first, so the consumer can rebuild what it keeps from the items themselves.
   */
  onCursorExpired?: 'fail' | 'earliest';
  onGap?: (gap: { expiredCursor: string; earliestCursor: string }) => Promise<void> | void;
  /** Stops the consumer (between pages, or by ending the long poll). */
  signal?: AbortSignal;
}

export interface Feed {
  /** Runs until `signal` aborts (resolves) or the handler or the service fails (rejects). */
  consume(options: ConsumeOptions): Promise<void>;
}

interface Page {
  data: FeedEntry[];
  meta: { nextCursor: string; hasMore: boolean };
}

function memoryStore(): CursorStore {
  let cursor: string | null = null;
  return {
    load: async () => cursor,
    save: async (next) => {
      cursor = next;
    },
  };
}

export function createFeed(api: Client<paths>): Feed {
  /** The position to resume from, and how a page's end is committed. */
  async function position(options: ConsumeOptions): Promise<{ cursor: string | null; filters: ConsumeOptions['filters']; commit(cursor: string): Promise<void> }> {
    if (options.subscription) {
      const id = options.subscription;
      const { data } = await api.GET('/api/v1/cdc/subscriptions/{id}', { params: { path: { id } } });
      const subscription = data!.data as unknown as { kind: string; cursor: string | null; filters: { collections: string[] | null; operations: string[] | null } };
      if (subscription.kind !== 'pull') throw new Error(`Subscription ${id} is a ${subscription.kind} subscription: only a pull subscription is consumed`);
      return {
        cursor: subscription.cursor,
        filters: { collections: subscription.filters.collections ?? undefined, operations: subscription.filters.operations ?? undefined },
        commit: async (cursor) => {
          await api.POST('/api/v1/cdc/subscriptions/{id}/ack', { params: { path: { id } }, body: { cursor } });
        },
      };
    }
    const store = options.store ?? memoryStore();
    let cursor = await store.load();
    if (cursor === null && options.from === 'end') cursor = await endOfFeed(options.filters);
    else if (cursor === null && options.from !== undefined && options.from !== 'start') cursor = options.from;
    return { cursor, filters: options.filters, commit: (next) => store.save(next) };
  }

  /** The cursor at the feed's end as it stands now: what `from: 'end'` starts after. */
  async function endOfFeed(filters: ConsumeOptions['filters']): Promise<string | null> {
    let cursor: string | null = null;
    for (;;) {
      const page = await read(cursor, filters, 500, 0, undefined);
      cursor = page.meta.nextCursor;
      if (!page.meta.hasMore) return cursor;
    }
  }

  async function read(cursor: string | null, filters: ConsumeOptions['filters'], limit: number, wait: number, signal: AbortSignal | undefined): Promise<Page> {
    const query: Record<string, string> = { limit: String(limit), wait: String(wait) };
    if (cursor !== null) query.cursor = cursor;
    if (filters?.collections?.length) query.collections = filters.collections.join(',');
    if (filters?.operations?.length) query.operations = filters.operations.join(',');
    const { data } = await api.GET('/api/v1/cdc/events', { params: { query: query as never }, ...(signal ? { signal } : {}) });
    return data as unknown as Page;
  }

  return {
    async consume(options) {
      const { signal } = options;
      const batch = options.batch ?? 100;
      const wait = options.wait ?? 25;
      const at = await position(options);
      let cursor = at.cursor;
      while (!signal?.aborted) {
        let page: Page;
        try {
          page = await read(cursor, at.filters, batch, wait, signal);
        } catch (error) {
          if (signal?.aborted) return;
          if (error instanceof SvcError && error.code === 'CURSOR_EXPIRED' && options.onCursorExpired === 'earliest' && cursor !== null) {
            const earliest = String(error.extensions.earliestCursor ?? '');
            await options.onGap?.({ expiredCursor: cursor, earliestCursor: earliest });
            // The earliest cursor names the oldest retained entry, which is read next: start before it.
            cursor = null;
            continue;
          }
          throw error;
        }
        if (page.data.length > 0) await options.onEntries(page.data);
        // Past every entry the page read (a short page still moves), once the handler is done with them.
        if (page.meta.nextCursor !== cursor) {
          await at.commit(page.meta.nextCursor);
          cursor = page.meta.nextCursor;
        }
      }
    },
  };
}
