// A site's content fingerprint (docs/delivery.md "Caching"): the position of its last event in the
// log, so any write of the site (an item, a page, a release publish, a setting) rotates it. Kept per
// instance and dropped when the site's svc_events notification arrives (every instance hears it), so
// a hot site costs no query: the fingerprint is read once per change, not once per request. This
// instance's own commits drop it before their callers go on (read your writes).
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';

export interface SiteState {
  /** The site exists and is not deleted. */
  live: boolean;
  /** The last event's position, as text; '0' for a site without events. */
  fingerprint: string;
}

export interface SiteFingerprints {
  get(siteId: string): Promise<SiteState>;
  close(): void;
}

export function createSiteFingerprints(context: Pick<AppContext, 'database' | 'notifier'>, maxSites = 10_000): SiteFingerprints {
  const known = new Map<string, SiteState>();
  /** Bumped by each notification of the site: a read begun before it must not store its answer. */
  const generations = new Map<string, number>();
  const changed = (siteId: string) => {
    known.delete(siteId);
    generations.set(siteId, (generations.get(siteId) ?? 0) + 1);
  };
  // This instance's own commits before their callers go on; other instances' through NOTIFY.
  const stopLocal = context.database.onCommitted((channel, siteId) => {
    if (channel === 'svc_events') changed(siteId);
  });
  const stopRemote = context.notifier.on('svc_events', changed);
  return {
    async get(siteId) {
      const cached = known.get(siteId);
      if (cached) return cached;
      const generation = generations.get(siteId) ?? 0;
      const [row] = await context.database.withSiteReads(siteId, (tx) =>
        tx.query<{ live: boolean; position: string | null }>(sql`
          SELECT EXISTS (SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL) AS live,
                 (SELECT max(position) FROM events WHERE site_id = ${siteId})::text AS position`),
      );
      const state = { live: row?.live ?? false, fingerprint: row?.position ?? '0' };
      if ((generations.get(siteId) ?? 0) === generation) {
        if (known.size >= maxSites) known.delete(known.keys().next().value!);
        known.set(siteId, state);
      }
      return state;
    },
    close() {
      stopLocal();
      stopRemote();
    },
  };
}
