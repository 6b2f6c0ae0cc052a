// Per-instance caches of what a site's writes can change (delivery's fingerprints, served file
// records) drop a site's entries on its next committed event: this instance's commits before their
// callers go on (database.onCommitted), other instances' through the svc_events NOTIFY. A generation
// per site tells a read begun before a change not to store its (older) answer.
import type { AppContext } from './context.ts';

export interface SiteChanges {
  /** How many changes of the site this instance has seen: compare before and after a read. */
  generation(siteId: string): number;
  close(): void;
}

export function watchSiteChanges(context: Pick<AppContext, 'database' | 'notifier'>, changed: (siteId: string) => void): SiteChanges {
  const generations = new Map<string, number>();
  const onChange = (siteId: string) => {
    generations.set(siteId, (generations.get(siteId) ?? 0) + 1);
    changed(siteId);
  };
  const stopLocal = context.database.onCommitted((channel, siteId) => {
    if (channel === 'svc_events') onChange(siteId);
  });
  const stopRemote = context.notifier.on('svc_events', onChange);
  return {
    generation: (siteId) => generations.get(siteId) ?? 0,
    close() {
      stopLocal();
      stopRemote();
    },
  };
}
