// GET /config/export: the site's configuration as a manifest. Collections by name, each one's fields
// in declaration order, relations by id, webhooks by name without their secret, stored settings by
// key. No items, no secrets, no roles, policies or permissions.
import {
  collectionEntryOf,
  fieldEntryOf,
  MANIFEST_VERSION,
  relationEntryOf,
  SCOPE_MANAGED,
  SCOPE_SECTIONS,
  type ConfigManifest,
  type ExportScope,
} from '../../../domain/config/manifest.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { readSiteSchema } from '../../schema/siteSchema.ts';
import { readStoredSettings } from '../settings/settingsStore.ts';
import { readSubscriptions } from './configState.ts';

export async function exportManifest(tx: Queryable, siteId: string, scope: ExportScope, now: Date = new Date()): Promise<ConfigManifest> {
  const sections = new Set(SCOPE_SECTIONS[scope]);
  const manifest: ConfigManifest = {
    version: MANIFEST_VERSION,
    exportedAt: now.toISOString(),
    collections: [],
    fields: [],
    relations: [],
    webhooks: [],
    settings: [],
    managedScopes: [...SCOPE_MANAGED[scope]],
  };
  if (sections.has('collections')) {
    const schema = await readSiteSchema(tx, siteId);
    const names = [...schema.collections.keys()].sort();
    for (const name of names) {
      const collection = schema.collections.get(name)!;
      manifest.collections.push(collectionEntryOf(name, collection.meta));
      for (const field of collection.fields.values()) manifest.fields.push(fieldEntryOf(name, field));
    }
    manifest.relations = schema.relations.map(relationEntryOf);
  }
  if (sections.has('webhooks')) {
    manifest.webhooks = (await readSubscriptions(tx, siteId))
      .filter((subscription) => subscription.kind === 'webhook')
      .map((subscription) => ({
        name: subscription.name,
        url: subscription.url ?? '',
        filters: { collections: subscription.collections, operations: subscription.operations },
      }));
  }
  if (sections.has('settings')) manifest.settings = (await readStoredSettings(tx, siteId)).map(({ key, value }) => ({ key, value }));
  return manifest;
}
