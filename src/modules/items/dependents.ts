// Items that point at an item through a relation (its dependents): counted per reference with a
// sample, for GET …/dependents, the restrict check of a delete, and resolve-dependents.
import type { ItemReference, OnDelete } from '../../../domain/content/schemaModel.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { fieldTextExpression } from '../../query/index.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';

export const DEPENDENT_SAMPLE_SIZE = 5;

export interface DependentEntry {
  relation: string;
  collection: string;
  field: string;
  onDelete: OnDelete;
  count: number;
  /** Ids of the first dependents (by id). */
  sample: string[];
}

export interface DependentsReport {
  /** A `restrict` relation still has items pointing at the item: deleting it is refused. */
  blocking: boolean;
  dependents: DependentEntry[];
}

function pointingAt(siteId: string, reference: ItemReference, itemId: string) {
  const kind = reference.collectionField
    ? sql` AND ${fieldTextExpression('r', reference.collectionField)} = ${reference.targetCollection}::text`
    : sql``;
  return sql`r.site_id = ${siteId} AND r.collection = ${reference.collection} AND r.deleted_at IS NULL
    AND ${fieldTextExpression('r', reference.field)} = ${itemId}::text${kind}`;
}

/** Which dependents a reader may see in samples (permissions); null: all. */
export type SampleCondition = (collection: string, alias: string) => SqlFragment | null;

/** Every reference to the collection, with how many live items point at `itemId` through it. */
export async function dependentsOf(
  tx: Queryable,
  siteId: string,
  collection: CollectionSchema,
  itemId: string,
  references: readonly ItemReference[] = collection.references,
  sampleCondition?: SampleCondition,
): Promise<DependentsReport> {
  const dependents: DependentEntry[] = [];
  for (const reference of references) {
    const visible = sampleCondition?.(reference.collection, 'r') ?? null;
    const rows = await tx.query<{ id: string | null; total: number }>(
      visible
        ? sql`
      SELECT CASE WHEN ${visible} THEN r.id END AS id, count(*) OVER ()::int AS total FROM items r
       WHERE ${pointingAt(siteId, reference, itemId)}
       ORDER BY (${visible}) DESC, r.id LIMIT ${DEPENDENT_SAMPLE_SIZE}`
        : sql`
      SELECT r.id, count(*) OVER ()::int AS total FROM items r
       WHERE ${pointingAt(siteId, reference, itemId)}
       ORDER BY r.id LIMIT ${DEPENDENT_SAMPLE_SIZE}`,
    );
    dependents.push({
      relation: reference.relationId,
      collection: reference.collection,
      field: reference.field,
      onDelete: reference.onDelete,
      count: rows[0]?.total ?? 0,
      sample: rows.flatMap((row) => (row.id === null ? [] : [row.id])),
    });
  }
  return { blocking: dependents.some((entry) => entry.onDelete === 'restrict' && entry.count > 0), dependents };
}

/**
 * Ids of every live item pointing at `itemId` through `reference`. Not locked here: each change
 * takes the item's own write lock (runItemCommand), which row locks taken first could deadlock with.
 */
export async function dependentIds(tx: Queryable, siteId: string, reference: ItemReference, itemId: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(sql`SELECT r.id FROM items r WHERE ${pointingAt(siteId, reference, itemId)} ORDER BY r.id`);
  return rows.map((row) => row.id);
}
