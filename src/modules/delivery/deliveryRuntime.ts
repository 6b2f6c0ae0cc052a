// The background parts of public delivery on one server, started by the area's manifest and stopped
// with the context: the sites' content fingerprints (dropped on each site's commit notification) and
// the response cache (with Redis, its purge channel).
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createSiteFingerprints, type SiteFingerprints } from './fingerprint.ts';
import { createResponseCache, type ResponseCache } from './responseCache.ts';

export interface DeliveryRuntime {
  fingerprints: SiteFingerprints;
  cache: ResponseCache;
  close(): Promise<void>;
}

export async function startDeliveryRuntime(context: AppContext): Promise<DeliveryRuntime> {
  const { config } = context;
  const fingerprints = createSiteFingerprints(context);
  const cache = await createResponseCache({
    redisUrl: config.REDIS_URL,
    prefix: `svc:${deploymentNamespace(config)}:delivery`,
    ttlSeconds: Math.max(config.SVC_DELIVER_SMAXAGE + config.SVC_DELIVER_SWR, 60),
    negativeTtlMs: config.SVC_NEGATIVE_CACHE_TTL * 1_000,
    logger: context.logger,
  });
  const unreport = context.metrics.cache('delivery', cache.stats);
  return {
    fingerprints,
    cache,
    async close() {
      unreport();
      fingerprints.close();
      await cache.close();
    },
  };
}
