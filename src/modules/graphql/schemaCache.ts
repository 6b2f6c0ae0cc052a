// GraphQL schemas per (site, schema version, exposure), built on first use and kept (least recently
// used first out). The site schema comes from the instance's schema cache, which every instance
// refreshes on a schema event (svc_schema NOTIFY): a new version is a new key, so a schema change
// rebuilds the GraphQL schema on its next request and a request never builds one it can reuse.
// The exposure (collections and readable fields) is keyed by a fingerprint, so callers who may do and
// read the same things share one schema whatever their role. It depends only on the caller's grants,
// which the grants cache keeps as one object per principal until an access change replaces it: the
// fingerprint is computed once per (grants object, site schema), not per request.
import { createHash } from 'node:crypto';
import type { Access } from '../../access/access.ts';
import type { Grants } from '../../access/grants.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { buildGraphqlSchema, isRuledField, type BuiltSchema, type Exposure } from './schemaBuilder.ts';

type Action = 'read' | 'create' | 'update' | 'delete';

/** What the caller may do per collection, and which fields it may read; site administrators may do and read everything. */
export function exposureOf(access: Access, site: SiteSchema): Exposure {
  const names = [...site.collections.keys()];
  const allowed = (action: Action) => new Set(access.admin ? names : names.filter((name) => access.can(action, name)));
  /** The fields `action` may touch per collection; only the names that change the schema (a rule listing a field since dropped reads the same). */
  const fieldsOf = (action: Action, collections: ReadonlySet<string>, ruled: (collection: CollectionSchema, field: string) => boolean) => {
    const fields = new Map<string, ReadonlySet<string> | null>();
    if (access.admin) return fields;
    for (const name of collections) {
      const allowance = access.allowedFields(action, name);
      const collection = site.collections.get(name)!;
      fields.set(name, allowance.all ? null : new Set([...allowance.fields].filter((field) => ruled(collection, field))));
    }
    return fields;
  };
  const read = allowed('read');
  const create = allowed('create');
  const update = allowed('update');
  return {
    read,
    create,
    update,
    delete: allowed('delete'),
    fields: fieldsOf('read', read, isRuledField),
    createFields: fieldsOf('create', create, (collection, field) => field === 'id' || isRuledField(collection, field)),
    updateFields: fieldsOf('update', update, isRuledField),
  };
}

/** A short, stable name of an exposure: equal exposures, equal fingerprints. */
function fingerprintOf(exposure: Exposure): string {
  const part = (names: Iterable<string>) => [...names].sort().join(',');
  const withFields = (collections: ReadonlySet<string>, fields: ReadonlyMap<string, ReadonlySet<string> | null>) =>
    part([...collections].map((name) => {
      const listed = fields.get(name);
      return listed ? `${name}(${part(listed)})` : name;
    }));
  const text = [withFields(exposure.read, exposure.fields), withFields(exposure.create, exposure.createFields), withFields(exposure.update, exposure.updateFields), part(exposure.delete)].join('|');
  return createHash('sha256').update(text).digest('base64url');
}

interface Shown {
  site: SiteSchema;
  exposure: Exposure;
  key: string;
}

export interface GraphqlSchemaCache {
  schemaFor(site: SiteSchema, access: Access): BuiltSchema;
  readonly size: number;
}

export function createGraphqlSchemaCache(maxEntries = 500): GraphqlSchemaCache {
  const entries = new Map<string, BuiltSchema>();
  /** The exposure and key of a grants object for the site schema it was last asked with. */
  const shownByGrants = new WeakMap<Grants, Shown>();

  function shownTo(site: SiteSchema, access: Access): Shown {
    const known = shownByGrants.get(access.grants);
    if (known && known.site === site) return known;
    const exposure = exposureOf(access, site);
    const shown = { site, exposure, key: `${site.siteId}\u0000${site.version}\u0000${fingerprintOf(exposure)}` };
    shownByGrants.set(access.grants, shown);
    return shown;
  }

  return {
    schemaFor(site, access) {
      // An administrator's request computes no exposure unless its schema must be built.
      const shown = access.admin ? null : shownTo(site, access);
      const key = shown?.key ?? `${site.siteId}\u0000${site.version}\u0000admin`;
      let built = entries.get(key);
      if (built) {
        entries.delete(key);
      } else {
        built = buildGraphqlSchema(site, shown?.exposure ?? exposureOf(access, site));
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
