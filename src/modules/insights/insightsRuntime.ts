// The insights area's part of one server (docs/insights.md, "Cache"): the panel answer cache, and the
// item-write hook that drops a collection's answers once a write to it has committed. The hook is
// registered here rather than in the manifest's `itemHooks`, because it closes over this server's
// cache: a context without a server (the CLI, a script) has no cache to drop, and a second server on
// one context (as a test builds) keeps its own cache and hook. Its removal goes with the runtime's stop.
import type { AppContext } from '../../runtime/context.ts';
import type { ItemWriteHook } from '../../runtime/itemHooks.ts';
import { createPanelCache, type PanelCache } from './panelCache.ts';

export interface InsightsRuntime {
  cache: PanelCache;
  stop(): Promise<void>;
}

/** After-commit on every kind of item write, every collection: the written collection's answers go. */
export function panelCacheItemHook(cache: PanelCache): ItemWriteHook {
  return {
    name: 'insights-panel-cache',
    async afterCommit(write) {
      cache.invalidate(write.siteId, write.collection.name);
    },
  };
}

export function startInsightsRuntime(context: AppContext): InsightsRuntime {
  const cache = createPanelCache({ ttlSeconds: context.config.SVC_PANEL_CACHE_SECONDS });
  const removeHook = context.itemHooks.register(panelCacheItemHook(cache));
  return {
    cache,
    async stop() {
      removeHook();
    },
  };
}
