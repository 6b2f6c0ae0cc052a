// A site's content fingerprint (docs/delivery.md "Caching"): its last event in log order, so any
// write of the site (an item, a page, a release publish, a setting) rotates it. Kept per
// instance and dropped when the site's svc_events notification arrives (every instance hears it), so
// a hot site costs no query: the fingerprint is read once per change, not once per request. This
// instance's own commits drop it before their callers go on (read your writes).
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { watchSiteChanges } from '../../runtime/siteChanges.ts';

export interface SiteState {
  /** The site exists and is not deleted. */
  live: boolean;
  /** The site's last settled event in log order (transaction, position); '0' for a site without events. */
  fingerprint: string;
  /**
   * False while a transaction that wrote to the site may still commit below its last visible event
   * (two writes in flight): the content can still change without a new last event, so nothing may be
   * cached or revalidated against it; the fingerprint then never repeats.
   */
  settled: boolean;
}

export interface SiteFingerprints {
  get(siteId: string): Promise<SiteState>;
  close(): void;
}

/** How many of the site's newest events are looked at (an event committed out of order is among them). */
const RECENT_EVENTS = 200;

export function createSiteFingerprints(context: Pick<AppContext, 'database' | 'notifier'>, maxSites = 10_000): SiteFingerprints {
  const known = new Map<string, SiteState>();
  const changes = watchSiteChanges(context, (siteId) => known.delete(siteId));
  let unsettledSerial = 0;
  return {
    async get(siteId) {
      const cached = known.get(siteId);
      if (cached) return cached;
      const generation = changes.generation(siteId);
      // Log order is (transaction, position) below the horizon of transactions that may still commit,
      // as the log readers read it (svc_read_all): positions alone are taken at insert, not at commit.
      const [row] = await context.database.withSiteReads(siteId, (tx) =>
        tx.query<{ live: boolean; settled_last: string | null; unsettled: boolean }>(sql`
          WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
               recent AS (SELECT tx_id, position FROM events WHERE site_id = ${siteId} ORDER BY position DESC LIMIT ${RECENT_EVENTS})
          SELECT EXISTS (SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL) AS live,
                 (SELECT r.tx_id::text || '.' || r.position FROM recent r, horizon h WHERE r.tx_id < h.xmin ORDER BY r.tx_id DESC, r.position DESC LIMIT 1) AS settled_last,
                 EXISTS (SELECT 1 FROM recent r, horizon h WHERE r.tx_id >= h.xmin) AS unsettled`),
      );
      const live = row?.live ?? false;
      if (row?.unsettled) return { live, fingerprint: `${row.settled_last ?? '0'}.u${++unsettledSerial}.${Date.now()}`, settled: false };
      const state = { live, fingerprint: row?.settled_last ?? '0', settled: true };
      if (changes.generation(siteId) === generation) {
        if (known.size >= maxSites) known.delete(known.keys().next().value!);
        known.set(siteId, state);
      }
      return state;
    },
    close: changes.close,
  };
}
