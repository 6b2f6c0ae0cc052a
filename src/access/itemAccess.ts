// How item routes apply an Access: collection-level refusals (403 PERMISSION_DENIED), rows the
// principal cannot see (404 RECORD_NOT_FOUND, never 403, so that existence does not leak), fields
// stripped on read, and fields outside the rule lists refused on write.
//
// Writes naming a field the principal may not write are refused with 403 PERMISSION_DENIED and
// path ['body', field] (['body', index, field] in a bulk create): the body is well-formed, the
// principal lacks the permission, so it is a permission error rather than VALIDATION_FAILED, and the
// path says which field to drop.
import { AppError, errors } from '../../domain/shared/appError.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import type { SiteSchema } from '../schema/schemaCache.ts';
import { splitDeepKey, unscopedDeepAppliesTo } from '../query/anyItemDeep.ts';
import { evaluateFilterNode, resolveFilter, type DeepQuery, type FilterNode, type FilterTree, type ItemRecord, type SortSpec } from '../query/index.ts';
import { ALL_FIELDS, READ_DECRYPTED } from '../../domain/access/permissionRule.ts';
import type { Access } from './access.ts';

/**
 * What item reads apply, per collection (the listed collection and every related collection a
 * field selection reaches): the rows the reader may read, the fields it may see (null: all).
 */
export interface ReadPermissions {
  rowCondition(collection: string, alias: string, table: SqlFragment): SqlFragment | null;
  visibleFields(collection: string): ReadonlySet<string> | null;
  /**
   * Whether the reader sees the value of a pii/phi field of `record` (its fields and `id`) rather
   * than its mask: a `read_decrypted` rule covers the field and its conditions hold for the record.
   */
  mayDecrypt(collection: string, field: string, record: ItemRecord): boolean;
}

/** The read permissions of an Access for the item reads; undefined for administrators (nothing to add). */
export function itemReadPermissions(access: Access): ReadPermissions | undefined {
  if (access.admin) return undefined;
  const visible = new Map<string, ReadonlySet<string>>();
  const decryptRules = new Map<string, { covers: (field: string) => boolean; conditions: FilterNode | null }[]>();
  return {
    rowCondition(collection, alias, table) {
      const node = access.rowFilter('read', collection);
      return node.kind === 'constant' && node.value ? null : access.rowFilterSql('read', collection, alias, table);
    },
    visibleFields(collection) {
      const allowed = access.allowedFields('read', collection);
      if (allowed.all) return null;
      let fields = visible.get(collection);
      if (!fields) visible.set(collection, (fields = new Set([...allowed.fields, ALWAYS_READABLE])));
      return fields;
    },
    mayDecrypt(collection, field, record) {
      let granted = decryptRules.get(collection);
      if (!granted) {
        // Per rule: the fields it covers and its conditions (null: every row).
        granted = access.rules(READ_DECRYPTED, collection).map((rule) => {
          const node = access.ruleFilter(rule, collection);
          const every = rule.collection === null || rule.fields.includes(ALL_FIELDS);
          return { covers: (name: string) => every || rule.fields.includes(name), conditions: node.kind === 'constant' && node.value ? null : node };
        });
        decryptRules.set(collection, granted);
      }
      return granted.some((rule) => rule.covers(field) && (rule.conditions === null || holds(rule.conditions, record)));
    },
  };
}

/** A rule's conditions on one record in memory; a relational condition cannot be judged there and does not hold. */
function holds(node: FilterNode, record: ItemRecord): boolean {
  try {
    return evaluateFilterNode(node, record);
  } catch {
    return false;
  }
}

export type ItemAction = 'create' | 'read' | 'update' | 'delete';

/** The key every visible item keeps: its id is not content, and the caller already names it. */
const ALWAYS_READABLE = 'id';

export function permissionDenied(message: string, path: (string | number)[] = []): AppError {
  return new AppError('PERMISSION_DENIED', message, { path });
}

/** 403 unless some rule allows `action` on the collection at all. */
export function assertCan(access: Access, action: ItemAction, collection: string): void {
  if (!access.can(action, collection)) {
    throw permissionDenied(`You may not ${action} items of "${collection}"`);
  }
}

/** The item without the fields the principal may not read (`id` stays). */
export function maskItem<T extends Record<string, unknown>>(access: Access, collection: string, item: T): Partial<T> {
  if (access.admin) return item;
  const allowed = access.allowedFields('read', collection);
  if (allowed.all) return item;
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === ALWAYS_READABLE || allowed.has(key)) masked[key] = value;
  }
  return masked as Partial<T>;
}

/** Whether a field may be read (for field selections and nested reads). */
export function canReadField(access: Access, collection: string, field: string): boolean {
  return field === ALWAYS_READABLE || access.allowedFields('read', collection).has(field);
}

/**
 * 403 with path ['body', ...prefix, field] for the first key of `body` outside the write rules of
 * `action`. Only keys that write something are checked: `status`, `sort` and the collection's fields
 * (`declared`); read-only keys are ignored by the write anyway, and unknown keys are left to the
 * input check (400).
 */
export function assertWritableFields(
  access: Access,
  action: 'create' | 'update',
  collection: string,
  body: Record<string, unknown>,
  declared: ReadonlyMap<string, unknown>,
  prefix: (string | number)[] = [],
): void {
  if (access.admin) return;
  const allowed = access.allowedFields(action, collection);
  if (allowed.all) return;
  for (const field of Object.keys(body)) {
    const writes = field === 'status' || field === 'sort' || (field !== 'id' && declared.has(field));
    if (writes && !allowed.has(field)) {
      throw permissionDenied(`You may not ${action === 'create' ? 'set' : 'change'} the field "${field}" of "${collection}"`, ['body', ...prefix, field]);
    }
  }
}

/** Field names a filter reads on its own collection, and the related collections it reaches into. */
function filterFields(node: FilterNode, own: Set<string>, related: { collection: string; node: FilterNode }[]): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.children) filterFields(child, own, related);
      return;
    case 'constant':
      return;
    case 'relation':
      own.add(node.field.field);
      related.push({ collection: node.collection, node: node.child });
      return;
    default:
      own.add(node.target.field.field);
  }
}

/**
 * A client filter may only test fields the principal may read (else it could learn a hidden value by
 * asking), on its own collection and on every related collection it reaches into: 403 with path
 * ['filter', field] otherwise.
 */
export function assertReadableFilter(access: Access, collection: string, node: FilterNode, path: (string | number)[] = ['filter']): void {
  if (access.admin) return;
  const own = new Set<string>();
  const related: { collection: string; node: FilterNode }[] = [];
  filterFields(node, own, related);
  for (const field of own) {
    if (!canReadField(access, collection, field)) throw permissionDenied(`You may not filter on the field "${field}" of "${collection}"`, [...path, field]);
  }
  for (const reached of related) {
    if (!access.can('read', reached.collection)) throw permissionDenied(`You may not read items of "${reached.collection}"`, path);
    assertReadableFilter(access, reached.collection, reached.node, path);
  }
}

/** Sorting on a field also reveals its order: 403 with path ['sort'] for a field (at any relation level) the principal may not read. */
export function assertReadableSort(access: Access, schema: SiteSchema, collection: string, sort: readonly SortSpec[], path: (string | number)[] = ['sort']): void {
  if (access.admin) return;
  for (const spec of sort) {
    let current = collection;
    for (const field of spec.field.split('.')) {
      if (!access.can('read', current)) throw permissionDenied(`You may not read items of "${current}"`, path);
      if (!canReadField(access, current, field)) throw permissionDenied(`You may not sort on the field "${field}" of "${current}"`, path);
      const next = schema.collections.get(current)?.queryFields.get(field)?.relation?.relatedCollection;
      if (!next) break;
      current = next;
    }
  }
}

/**
 * The parts of a list query that test values (filter, sort, deep filters and sorts, aggregates and
 * groupBy) may only name fields the principal may read: 403 PERMISSION_DENIED with the parameter's
 * path otherwise. (Fields merely selected are stripped from the answer instead.)
 */
export function assertReadableQuery(
  access: Access,
  schema: SiteSchema,
  collection: string,
  query: {
    filter: FilterTree | null;
    sort: readonly SortSpec[];
    deep: Record<string, DeepQuery>;
    aggregate?: Record<string, string[] | undefined> | null;
    groupBy?: readonly string[];
    /** X-Svc-Locale: translatable fields are filtered as that language's values. */
    locale?: string | null;
  },
  now: Date = new Date(),
  path: (string | number)[] = [],
): void {
  if (access.admin) return;
  const fields = schema.collections.get(collection)?.queryFields;
  if (!fields) return;
  if (query.filter) {
    const localized = schema.fieldsIn(query.locale ?? null);
    const node = resolveFilter(query.filter, {
      fields: localized(collection) ?? fields,
      resolveFields: localized,
      now,
      userId: access.principal.kind === 'user' ? access.principal.userId : null,
      roleId: access.grants.roleId,
      path: [...path, 'filter'],
      // Only the fields it reads matter here: the query refuses a pii/phi comparison when it compiles.
      sealedComparable: true,
    });
    assertReadableFilter(access, collection, node, [...path, 'filter']);
  }
  assertReadableSort(access, schema, collection, query.sort, [...path, 'sort']);
  for (const name of [...(query.groupBy ?? []), ...Object.values(query.aggregate ?? {}).flatMap((names) => names ?? [])]) {
    if (name !== '*' && !canReadField(access, collection, name)) {
      throw permissionDenied(`You may not aggregate on the field "${name}" of "${collection}"`, [...path, query.groupBy?.includes(name) ? 'groupBy' : 'aggregate']);
    }
  }
  for (const [key, deep] of Object.entries(query.deep)) {
    const { field, scope } = splitDeepKey(key);
    const anyItem = fields.get(field)?.anyItem;
    if (anyItem) {
      // m2a targets: `item:<c>` tests fields of c; unscoped `item`, of every allowed collection it applies
      // to whose items the principal may read at all (the others' targets read null whatever the filter).
      // A scope the relation does not allow is refused by the read (400).
      const targets = anyItem.allowedCollections.filter((target) => {
        const targetFields = schema.collections.get(target)?.queryFields;
        if (!targetFields) return false;
        return scope !== null ? target === scope : access.can('read', target) && unscopedDeepAppliesTo(deep, targetFields);
      });
      for (const target of targets) {
        assertReadableQuery(access, schema, target, { filter: deep.filter, sort: [], deep: deep.deep, locale: query.locale }, now, [...path, 'deep', key]);
      }
      continue;
    }
    const related = scope === null ? fields.get(field)?.relation?.relatedCollection : undefined;
    if (!related) continue;
    assertReadableQuery(access, schema, related, { filter: deep.filter, sort: deep.sort, deep: deep.deep, locale: query.locale }, now, [...path, 'deep', key]);
  }
}

/**
 * Whether an item may be reached by `action`: 404 RECORD_NOT_FOUND when it does not exist (or is
 * deleted) or the principal can neither read it nor `action` it; 403 when it can read it but not
 * `action` it. Runs one query in the caller's transaction (nothing for administrators).
 */
export async function assertRowAccess(tx: Queryable, access: Access, action: ItemAction, collection: string, itemId: string): Promise<void> {
  if (access.admin) return;
  if (!access.can(action, collection) && !access.can('read', collection)) throw permissionDenied(`You may not ${action} items of "${collection}"`);
  // A write locks the row, so that no concurrent change makes it leave the rule's rows before the
  // caller's own change (in the same transaction) lands.
  const lock = action === 'read' ? sql`` : sql` FOR UPDATE OF i`;
  const [row] = await tx.query<{ allowed: boolean; visible: boolean }>(sql`
    SELECT ${access.rowFilterSql(action, collection, 'i')} AS allowed, ${access.rowFilterSql('read', collection, 'i')} AS visible
      FROM items i
     WHERE i.site_id = ${access.siteId} AND i.collection = ${collection} AND i.id = ${itemId} AND i.deleted_at IS NULL${lock}`);
  if (!row || (!row.allowed && !row.visible)) throw errors.recordNotFound();
  if (!row.allowed) throw permissionDenied(`You may not ${action} this item of "${collection}"`);
}

/**
 * A new item (as it will be stored: content fields, status, userCreated, ...) must satisfy the
 * conditions of some create rule: 403 otherwise. Create rules are checked in memory; a relational
 * condition in a create rule is refused when the rule is saved.
 */
export function assertCreatable(access: Access, collection: string, item: ItemRecord, path: (string | number)[] = ['body']): void {
  if (access.admin) return;
  const node = access.rowFilter('create', collection);
  let allowed = false;
  try {
    allowed = evaluateFilterNode(node, item);
  } catch {
    // A relational condition (refused when saved, but a field may have become a relation since): fail closed.
  }
  if (!allowed) throw permissionDenied(`The item does not meet the conditions under which you may create items of "${collection}"`, path);
}
