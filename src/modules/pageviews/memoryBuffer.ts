// The in-process buffer of one instance (no REDIS_URL, or Redis unreachable): counts per site and
// day until the instance flushes them. What a crash loses is what it held: the hits of this instance
// since its last flush. A failed write is put back and retried at the next flush.
import { addHit, emptyDayCounts, type DayCounts } from './pageviewCounts.ts';

/**
 * Visitor entries (one per visitor and path) held at most, about 150 bytes each: past it, hits are
 * not counted until the next flush empties the buffer, so an outage of PostgreSQL cannot grow the
 * instance's memory without end.
 */
export const MAX_BUFFERED_VISITOR_ENTRIES = 200_000;

export interface MemoryBuffer {
  /** Counts a hit; false when the buffer is full (the hit is not counted). */
  record(siteId: string, day: string, path: string, visitor: string): boolean;
  /** Empties the buffer and returns what it held. */
  take(): DayCounts[];
  /** Puts back counts whose write failed (as far as they fit). */
  restore(counts: readonly DayCounts[]): void;
}

export function createMemoryBuffer(maxEntries = MAX_BUFFERED_VISITOR_ENTRIES): MemoryBuffer {
  let days = new Map<string, DayCounts>();
  let entries = 0;

  function dayCounts(siteId: string, day: string): DayCounts {
    const key = `${siteId}/${day}`;
    let counts = days.get(key);
    if (!counts) days.set(key, (counts = emptyDayCounts(siteId, day)));
    return counts;
  }

  return {
    record(siteId, day, path, visitor) {
      // A hit adds at most two entries (its path and the whole site).
      if (entries + 2 > maxEntries) return false;
      const counts = dayCounts(siteId, day);
      const before = counts.visitors.size;
      addHit(counts, path, visitor);
      entries += counts.visitors.size - before;
      return true;
    },
    take() {
      const taken = [...days.values()];
      days = new Map();
      entries = 0;
      return taken;
    },
    restore(restored) {
      for (const counts of restored) {
        const into = dayCounts(counts.siteId, counts.day);
        for (const [path, views] of counts.views) into.views.set(path, (into.views.get(path) ?? 0) + views);
        for (const entry of counts.visitors) {
          if (entries >= maxEntries) break;
          if (into.visitors.has(entry)) continue;
          into.visitors.add(entry);
          entries += 1;
        }
      }
    },
  };
}
