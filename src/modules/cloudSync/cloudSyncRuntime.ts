// The cloud-sync area's background part on one server, started by its manifest (src/modules/index.ts)
// and stopped with the context: the guarded outbound HTTP client (a realtime database's URL is the
// site admin's; SVC_WEBHOOK_ALLOW_PRIVATE opens private addresses, as for webhooks), the target
// clients by pipeline, and the sync reactor over the change feed.
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createFeedWatcher } from '../cdc/feedWatcher.ts';
import { createTargetCache, type SyncDeps } from './sync.ts';
import { startCloudSyncReactor } from './syncReactor.ts';

export interface CloudSyncRuntime extends SyncDeps {
  stop(): Promise<void>;
}

export function startCloudSyncRuntime(context: AppContext): CloudSyncRuntime {
  const http = createOutboundHttp({ allowPrivate: context.config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-cloud-sync/${context.version}` });
  const watcher = createFeedWatcher(context.notifier);
  const deps: SyncDeps = { context, http, targets: createTargetCache() };
  const reactor = startCloudSyncReactor({ ...deps, watcher });
  return {
    ...deps,
    async stop() {
      await reactor.stop();
      watcher.close();
      http.close();
    },
  };
}
