// Which records a data subject's filter names: the items of one collection (live or deleted) that
// match it. An erasure request (POST /admin/erasure) and a subject access export by filter
// (POST /admin/sar/export, src/modules/privacy/sarExport.ts) find their records here, by the same
// rules. A filter over plain fields is compiled to SQL like any item filter; a filter naming a
// pii/phi field (an email, say) cannot be, since those values are sealed: the collection's items
// are then read in pages, their sealed values opened, and the filter evaluated on them.
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Principal } from '../../auth/principal.ts';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import { compileFilterNode, evaluateFilterNode, resolveFilter, type DynamicValueContext, type FilterNode } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { createRevealer, DECRYPT_EVERYTHING, type Revealer } from '../encryption/reveal.ts';

/** The most records one erasure request may erase: a wider filter is refused, to be narrowed. */
export const MAX_ERASURE_RECORDS = 10_000;
const SCAN_PAGE = 1_000;

/**
 * Checks the filter against the collection's fields (400 VALIDATION_FAILED at body.filter). pii/phi
 * fields may be compared (an email names its subject): their values are opened to match, never kept.
 */
export function resolveSubjectFilter(filter: unknown, collection: CollectionSchema, dynamic: DynamicValueContext): FilterNode {
  return resolveFilter(filter, { ...dynamic, fields: collection.queryFields, path: ['body', 'filter'], sealedComparable: true });
}

/** The field names a filter tree mentions (operators start with `_`). */
function namedFields(tree: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(tree)) for (const entry of tree) namedFields(entry, into);
  else if (tree && typeof tree === 'object') {
    for (const [key, value] of Object.entries(tree)) {
      // `email.domain` reaches into `email`: the field is the first segment.
      if (!key.startsWith('_')) into.add(key.split('.')[0]!);
      namedFields(value, into);
    }
  }
  return into;
}

function tooMany(bound: number): AppError {
  return new AppError('VALIDATION_FAILED', `The filter matches more than ${bound} records: narrow it and request each part`, { path: ['body', 'filter'] });
}

/** The ids of the matching records, in id order; more than `bound` is 400 VALIDATION_FAILED at body.filter. */
export async function matchSubjectRecords(
  tx: Queryable,
  siteId: string,
  collection: CollectionSchema,
  filter: unknown,
  node: FilterNode,
  revealer: Revealer,
  bound: number,
): Promise<string[]> {
  const sealed = [...namedFields(filter)].some((field) => collection.sensitiveFields.has(field));
  if (!sealed) {
    const rows = await tx.query<{ id: string }>(sql`
      SELECT i.id FROM items i WHERE i.site_id = ${siteId} AND i.collection = ${collection.name} AND ${compileFilterNode(node, 'i')}
       ORDER BY i.id LIMIT ${bound + 1}`);
    if (rows.length > bound) throw tooMany(bound);
    return rows.map((row) => row.id);
  }
  const matched: string[] = [];
  let after = '';
  for (;;) {
    const rows = await tx.query<{ id: string; status: string | null; sort: number | null; created_at: Date | null; updated_at: Date | null; user_created: string | null; user_updated: string | null; deleted_at: Date | null; data: Record<string, unknown> }>(sql`
      SELECT id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, data FROM items
       WHERE site_id = ${siteId} AND collection = ${collection.name} AND id > ${after}
       ORDER BY id LIMIT ${SCAN_PAGE}`);
    if (rows.length === 0) return matched;
    const contents = await revealer.reveal(tx, collection, rows.map((row) => ({ itemId: row.id, content: row.data })));
    rows.forEach((row, index) => {
      const record = {
        ...contents[index],
        id: row.id,
        status: row.status,
        sort: row.sort,
        createdAt: row.created_at?.toISOString() ?? null,
        updatedAt: row.updated_at?.toISOString() ?? null,
        userCreated: row.user_created,
        userUpdated: row.user_updated,
        deletedAt: row.deleted_at?.toISOString() ?? null,
      };
      if (evaluateFilterNode(node, record)) matched.push(row.id);
    });
    if (matched.length > bound) throw tooMany(bound);
    after = rows.at(-1)!.id;
  }
}

export interface SubjectRecordsQuery {
  siteId: string;
  collection: CollectionSchema;
  filter: Record<string, unknown>;
  /** Who asks: $CURRENT_USER and $NOW in the filter. */
  principal: Principal;
  metadata: EventMetadata;
  /** The most records the caller takes (MAX_ERASURE_RECORDS for an erasure). */
  bound: number;
}

/** Resolves the filter and finds its records; matching opens sealed values for the filter only, none is returned or stored. */
export async function findSubjectRecords(context: Pick<AppContext, 'database' | 'projections' | 'keyRing'>, query: SubjectRecordsQuery): Promise<string[]> {
  const { siteId, collection, filter } = query;
  const node = resolveSubjectFilter(filter, collection, dynamicValuesOf(query.principal));
  const revealer = createRevealer(context, siteId, DECRYPT_EVERYTHING, query.metadata);
  return context.database.withSiteReads(siteId, (tx) => matchSubjectRecords(tx, siteId, collection, filter, node, revealer, query.bound));
}
