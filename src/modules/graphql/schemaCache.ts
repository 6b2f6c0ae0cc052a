// GraphQL schemas per (site, schema version, exposure), built on first use and kept (least recently
// used first out). The site schema comes from the instance's schema cache, which every instance
// refreshes on a schema event (svc_schema NOTIFY): a new version is a new key, so a schema change
// rebuilds the GraphQL schema on its next request and a request never builds one it can reuse.
import type { Access } from '../../access/access.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { buildGraphqlSchema, type BuiltSchema, type Exposure } from './schemaBuilder.ts';

const ACTIONS = ['read', 'create', 'update', 'delete'] as const;

/** What the caller may do per collection; site administrators may do everything. */
export function exposureOf(access: Access, site: SiteSchema): Exposure {
  const names = [...site.collections.keys()];
  const allowed = (action: (typeof ACTIONS)[number]) => new Set(access.admin ? names : names.filter((name) => access.can(action, name)));
  return { read: allowed('read'), create: allowed('create'), update: allowed('update'), delete: allowed('delete') };
}

/** Administrators share one schema per site version; anyone else's key is what they may do. */
function keyOf(site: SiteSchema, exposure: Exposure | null): string {
  const part = (names: ReadonlySet<string>) => [...names].sort().join(',');
  const shown = exposure === null ? 'admin' : ACTIONS.map((action) => part(exposure[action])).join('|');
  return `${site.siteId}\u0000${site.version}\u0000${shown}`;
}

export interface GraphqlSchemaCache {
  schemaFor(site: SiteSchema, access: Access): BuiltSchema;
  readonly size: number;
}

export function createGraphqlSchemaCache(maxEntries = 500): GraphqlSchemaCache {
  const entries = new Map<string, BuiltSchema>();
  return {
    schemaFor(site, access) {
      // An administrator's request computes no exposure unless its schema must be built.
      const exposure = access.admin ? null : exposureOf(access, site);
      const key = keyOf(site, exposure);
      let built = entries.get(key);
      if (built) {
        entries.delete(key);
      } else {
        built = buildGraphqlSchema(site, exposure ?? exposureOf(access, site));
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      }
      entries.set(key, built);
      return built;
    },
    get size() {
      return entries.size;
    },
  };
}
