// Wakes readers waiting for a site's feed to grow: the change-feed projection sends a
// `change-feed:<site>` notification on svc_checkpoints when a batch with that site's entries commits.
import type { LogNotifier } from '../../../infra/eventstore/logNotifier.ts';
import { CHANGE_FEED_PROJECTION } from '../../../projections/changeFeedProjection.ts';

export interface FeedWatcher {
  /** Resolves when the site's feed grows, after `timeoutMs`, or on abort, whichever is first. */
  next(siteId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Calls `listener` with the site id each time a site's feed grows. */
  onGrowth(listener: (siteId: string) => void): () => void;
  close(): void;
}

const PREFIX = `${CHANGE_FEED_PROJECTION}:`;

export function createFeedWatcher(notifier: LogNotifier): FeedWatcher {
  const waiters = new Map<string, Set<() => void>>();
  const listeners = new Set<(siteId: string) => void>();
  const stop = notifier.on('svc_checkpoints', (payload) => {
    if (!payload.startsWith(PREFIX)) return;
    const siteId = payload.slice(PREFIX.length);
    const waiting = waiters.get(siteId);
    if (waiting) for (const wake of [...waiting]) wake();
    for (const listener of listeners) listener(siteId);
  });

  return {
    next(siteId, timeoutMs, signal) {
      return new Promise((resolve) => {
        let set = waiters.get(siteId);
        if (!set) waiters.set(siteId, (set = new Set()));
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          set.delete(done);
          if (set.size === 0) waiters.delete(siteId);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, timeoutMs));
        set.add(done);
        signal?.addEventListener('abort', done);
        if (signal?.aborted) done();
      });
    },
    onGrowth(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      stop();
      for (const set of waiters.values()) for (const wake of [...set]) wake();
      listeners.clear();
    },
  };
}
