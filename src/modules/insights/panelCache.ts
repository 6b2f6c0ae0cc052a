// Panel answers kept in this instance's memory (docs/insights.md, "Cache"): bounded in entries and
// bytes, each for SVC_PANEL_CACHE_SECONDS. An entry is keyed by the site, the source and collection,
// the schema version, the normalized query and the caller's permission fingerprint, so an answer is
// only ever reused for a caller with the same rights. A write to a collection drops at once every
// entry that reads it (the item-write hook of insightsRuntime.ts); another instance's entries live
// out their lifetime.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Access } from '../../access/access.ts';
import type { PanelPlan, PanelRow } from './panelQuery.ts';

export interface PanelAnswer {
  rows: PanelRow[];
  executedAt: string;
  durationMs: number;
}

export interface PanelCache {
  /**
   * The cached answer of `plan` for callers of `fingerprint` (null: never cached), or `compute`'s,
   * kept unless a write to a collection it reads landed while it ran.
   */
  answer(plan: PanelPlan, schemaVersion: number, fingerprint: string | null, compute: () => Promise<PanelAnswer>): Promise<PanelAnswer & { cached: boolean }>;
  /** Drops every answer that reads the collection in the site. */
  invalidate(siteId: string, collection: string): void;
  readonly size: number;
}

interface Entry {
  answer: PanelAnswer;
  siteId: string;
  collections: readonly string[];
}

export interface PanelCacheOptions {
  ttlSeconds: number;
  maxEntries?: number;
  maxBytes?: number;
}

const DEFAULT_MAX_ENTRIES = 1_000;
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
/** How many (site, collection) write generations are remembered; a forgotten one reads as changed. */
const MAX_GENERATIONS = 10_000;

export function createPanelCache({ ttlSeconds, maxEntries = DEFAULT_MAX_ENTRIES, maxBytes = DEFAULT_MAX_BYTES }: PanelCacheOptions): PanelCache {
  const generationKey = (siteId: string, collection: string) => `${siteId}\u0000${collection}`;
  // The keys of the answers that read each (site, collection): a write drops them without a walk of the cache.
  const readers = new Map<string, Set<string>>();
  const forget = (key: string, entry: Entry) => {
    for (const collection of entry.collections) {
      const keys = readers.get(generationKey(entry.siteId, collection));
      keys?.delete(key);
      if (keys?.size === 0) readers.delete(generationKey(entry.siteId, collection));
    }
  };
  const entries =
    ttlSeconds > 0
      ? new LRUCache<string, Entry>({
          max: maxEntries,
          maxSize: maxBytes,
          maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
          sizeCalculation: (entry) => Math.max(1, Buffer.byteLength(JSON.stringify(entry.answer.rows))),
          ttl: ttlSeconds * 1_000,
          dispose: (entry, key) => forget(key, entry),
        })
      : null;
  // A write moves its collection's generation: an answer computed across a write is not kept.
  const generations = new LRUCache<string, number>({ max: MAX_GENERATIONS });
  let counter = 0;
  const generationsOf = (plan: PanelPlan) => plan.collections.map((collection) => generations.get(generationKey(plan.siteId, collection)) ?? -1).join(',');

  return {
    async answer(plan, schemaVersion, fingerprint, compute) {
      if (!entries || fingerprint === null) return { ...(await compute()), cached: false };
      const key = [plan.siteId, plan.source, plan.collection ?? '', schemaVersion, fingerprint, plan.normalized].join('\u0000');
      const hit = entries.get(key);
      if (hit) return { ...hit.answer, cached: true };
      const before = generationsOf(plan);
      const answer = await compute();
      if (generationsOf(plan) === before) {
        entries.set(key, { answer, siteId: plan.siteId, collections: plan.collections });
        if (entries.has(key)) {
          for (const collection of plan.collections) {
            const readerKey = generationKey(plan.siteId, collection);
            readers.set(readerKey, (readers.get(readerKey) ?? new Set()).add(key));
          }
        }
      }
      return { ...answer, cached: false };
    },
    invalidate(siteId, collection) {
      generations.set(generationKey(siteId, collection), ++counter);
      const stale = readers.get(generationKey(siteId, collection));
      if (!entries || !stale) return;
      for (const key of [...stale]) entries.delete(key);
    },
    get size() {
      return entries?.size ?? 0;
    },
  };
}

/**
 * Who may share a cached answer: administrators all alike; anyone else by their read rules (and
 * role, teams), and by their own id where a rule or the query names $CURRENT_USER or $CURRENT_ROLE.
 * Null where either names $NOW (a rule that moves with the clock): such answers are not cached.
 */
export function permissionFingerprint(access: Access, normalizedQuery: string): string | null {
  if (access.admin) return 'admin';
  const { grants, principal } = access;
  const rules = grants.rules.map((rule) => [rule.collection, rule.action, rule.fields, rule.conditions]);
  const text = `${JSON.stringify(rules)}${normalizedQuery}`.toUpperCase();
  if (text.includes('$NOW')) return null;
  const personal = text.includes('$CURRENT_USER') || text.includes('$CURRENT_ROLE');
  const who = personal ? { kind: principal.kind, user: principal.kind === 'user' ? principal.userId : null } : null;
  const material = JSON.stringify({ rules, roleId: grants.roleId, roleChain: grants.roleChain, teams: grants.teamIds, who });
  return createHash('sha256').update(material).digest('base64url');
}
