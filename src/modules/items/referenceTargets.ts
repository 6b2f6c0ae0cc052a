// A reference an item write sets must name a live item of the site (docs/content.md, "References"):
// looked up in one query per write, inside its transaction, whatever the number of items and fields.
// The targets' rows are locked FOR KEY SHARE until the write commits, as PostgreSQL's own foreign
// keys lock the rows they point at: a delete takes its item's row FOR UPDATE first (deleteItem.ts),
// so it waits for the writes pointing at the item and a write after it finds the item deleted;
// edits of a target (a no-key update of its row) never wait for the writes pointing at it, and two
// writes pointing at each other's items cannot deadlock on the locks. FOR SHARE would block every
// edit of a much-referenced item behind the writes pointing at it.
import { outgoingReferences, referenceTargets, type ReferenceTarget, type ReferenceWrite } from '../../../domain/content/itemReferences.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';

/** A reference to check, with where its value was sent (`['body', 'author']`, bulk `['body', 3, 'author']`). */
export interface PlacedTarget extends ReferenceTarget {
  path: (string | number)[];
}

/** What one item's write sets in its reference fields, placed under `basePath`. */
export function placedTargets(collection: CollectionSchema, write: ReferenceWrite, basePath: (string | number)[]): PlacedTarget[] {
  const references = outgoingReferences(collection.relations, collection.name);
  if (references.length === 0) return [];
  return referenceTargets(references, write).map((target) => ({ ...target, path: [...basePath, target.field] }));
}

/** An item's key in the sets below: `assertTargetsExist`'s `created`, what `lockLiveItems` answers. */
export function itemKey(collection: string, id: string): string {
  return `${collection}\u0000${id}`;
}

/**
 * 400 VALIDATION_FAILED at the first target that is no live item of this site; the others are
 * locked FOR KEY SHARE until the transaction ends. `created`: items the same write creates (a bulk
 * create's items may point at each other), by `itemKey`.
 */
export async function assertTargetsExist(tx: Queryable, siteId: string, targets: readonly PlacedTarget[], created: ReadonlySet<string> = new Set()): Promise<void> {
  const wanted = targets.filter((target) => !created.has(itemKey(target.collection, target.id)));
  if (wanted.length === 0) return;
  const live = await lockLiveItems(tx, siteId, wanted);
  const missing = wanted.find((target) => !live.has(itemKey(target.collection, target.id)));
  if (missing) {
    throw new AppError('VALIDATION_FAILED', `"${missing.field}" points at "${missing.id}", which is no item of "${missing.collection}"`, {
      path: missing.path,
      extensions: { collection: missing.collection, id: missing.id },
    });
  }
}

/**
 * Which of these items are live in the site (by `itemKey`), in one query; their rows stay locked
 * FOR KEY SHARE until the transaction ends. Taken in one order, so writers locking several never cross.
 */
export async function lockLiveItems(tx: Queryable, siteId: string, items: readonly { collection: string; id: string }[]): Promise<Set<string>> {
  const unique = new Map(items.map((item) => [itemKey(item.collection, item.id), item]));
  const sorted = [...unique.keys()].sort().map((key) => unique.get(key)!);
  const rows = await tx.query<{ collection: string; id: string }>(sql`
    SELECT t.collection, t.id FROM items t
      JOIN unnest(${sorted.map((item) => item.collection)}::text[], ${sorted.map((item) => item.id)}::text[]) AS w(collection, id)
        ON t.collection = w.collection AND t.id = w.id
     WHERE t.site_id = ${siteId} AND t.deleted_at IS NULL
     ORDER BY t.collection, t.id
       FOR KEY SHARE OF t`);
  return new Set(rows.map((row) => itemKey(row.collection, row.id)));
}
