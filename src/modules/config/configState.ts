// What the config manifest reads of a site: its configuration (schema, webhooks, settings) from the
// read models, and whether items hold values where an import would drop or reshape.
import type { DataChecks, SiteConfiguration, SubscriptionSummary } from '../../../domain/config/configPlan.ts';
import type { ConversionCounts } from '../../../domain/content/fieldTypeChange.ts';
import type { RelationDefinition } from '../../../domain/content/schemaModel.ts';
import type { ManifestError } from '../../../domain/config/manifest.ts';
import type { DataPresence } from '../../../domain/config/planImport.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { readSiteSchema } from '../../schema/siteSchema.ts';
import { countConversions, fieldHoldsOrHeldValues, refusalOfTypeChange } from '../schema/fieldTypeChanges.ts';
import { readStoredSettings } from '../settings/settingsStore.ts';

export async function readSubscriptions(tx: Queryable, siteId: string): Promise<SubscriptionSummary[]> {
  return tx.query<SubscriptionSummary>(sql`
    SELECT id::text AS id, name, kind, url, collections, operations FROM cdc_subscriptions WHERE site_id = ${siteId} ORDER BY name`);
}

export async function readSiteConfiguration(tx: Queryable, siteId: string): Promise<SiteConfiguration> {
  const schema = await readSiteSchema(tx, siteId);
  const collections = new Map([...schema.collections].map(([name, collection]) => [name, { meta: collection.meta, fields: collection.fields }]));
  const settings = new Map((await readStoredSettings(tx, siteId)).map((setting) => [setting.key, setting.value]));
  return { collections, relations: schema.relations, subscriptions: await readSubscriptions(tx, siteId), settings };
}

/** Which of the collections and fields an import drops or renames hold data (items live or soft-deleted), and in how many items. */
export async function readDataPresence(tx: Queryable, siteId: string, checks: DataChecks): Promise<DataPresence> {
  const collections = checks.collections.length
    ? await tx.query<{ collection: string }>(sql`
        SELECT c.collection FROM unnest(${checks.collections}::text[]) AS c(collection)
         WHERE EXISTS (SELECT 1 FROM items i WHERE i.site_id = ${siteId} AND i.collection = c.collection)`)
    : [];
  const fields = checks.fields.length
    ? await tx.query<{ collection: string; field: string; held: number }>(sql`
        SELECT c.collection, c.field, h.held FROM unnest(${checks.fields.map((f) => f.collection)}::text[], ${checks.fields.map((f) => f.field)}::text[]) AS c(collection, field)
         CROSS JOIN LATERAL (SELECT count(*)::int AS held FROM items i WHERE i.site_id = ${siteId} AND i.collection = c.collection
                                AND i.data ? c.field AND i.data -> c.field <> 'null'::jsonb) AS h
         WHERE h.held > 0`)
    : [];
  return {
    collections: new Set(collections.map((row) => row.collection)),
    fields: new Map(fields.map((row) => [`${row.collection}.${row.field}`, row.held])),
  };
}

/**
 * What the type changes of the plan do (PATCH /fields asks the same, src/modules/schema/fieldTypeChanges.ts):
 * a field that holds or held values converts them, and some changes are refused even with
 * allowDestructive (409 CONFLICT, one error per field). Fields that never held a value change freely.
 */
export async function readTypeChanges(
  tx: Queryable,
  siteId: string,
  relations: readonly RelationDefinition[],
  checks: DataChecks,
): Promise<{ errors: ManifestError[]; conversions: Map<string, ConversionCounts> }> {
  const errors: ManifestError[] = [];
  const conversions = new Map<string, ConversionCounts>();
  for (const { collection, current, next, path } of checks.retyped) {
    if (!(await fieldHoldsOrHeldValues(tx, siteId, collection, current.field))) continue;
    const refusal = await refusalOfTypeChange(tx, siteId, { relations }, collection, current, next);
    if (refusal) errors.push({ code: 'CONFLICT', message: refusal.message, path });
    else conversions.set(`${collection}.${current.field}`, await countConversions(tx, siteId, collection, next));
  }
  return { errors, conversions };
}

/**
 * The schema's rule for a field's translatable option (PATCH /fields answers the same 409): it
 * cannot change while an item holds a value in the field or ever held one, live, soft-deleted or in
 * its history. One error per such field.
 */
export async function reshapeErrors(tx: Queryable, siteId: string, checks: DataChecks): Promise<ManifestError[]> {
  if (checks.reshaped.length === 0) return [];
  const rows = await tx.query<{ collection: string; field: string }>(sql`
    SELECT c.collection, c.field FROM unnest(${checks.reshaped.map((f) => f.collection)}::text[], ${checks.reshaped.map((f) => f.field)}::text[]) AS c(collection, field)
     WHERE EXISTS (SELECT 1 FROM items i WHERE i.site_id = ${siteId} AND i.collection = c.collection
                      AND i.data ? c.field AND i.data -> c.field <> 'null'::jsonb)
        OR EXISTS (SELECT 1 FROM item_history h WHERE h.site_id = ${siteId} AND h.collection = c.collection
                      AND h.data ? c.field AND h.data -> c.field <> 'null'::jsonb)`);
  const held = new Set(rows.map((row) => `${row.collection}.${row.field}`));
  return checks.reshaped
    .filter((check) => held.has(`${check.collection}.${check.field}`))
    .map((check) => ({
      code: 'CONFLICT' as const,
      message: `Items of "${check.collection}" hold or held values in "${check.field}"; its translatable option cannot change`,
      path: check.path,
    }));
}
