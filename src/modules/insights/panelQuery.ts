// A panel query (docs/insights.md): planned against the whitelist of what the caller may read, then
// run through the one query compiler. Items go through the items read path (listItems: aggregate,
// groupBy, the caller's row permissions from guardItemReadBy); the audit log through the same
// filter compiler and compileAggregate over its columns. No SQL of a panel is written here by hand
// but the audit source's FROM.
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { permissionDenied } from '../../access/itemAccess.ts';
import { guardItemReadBy } from '../../access/itemGuards.ts';
import { dateShapeOf, kindOfField } from '../../query/fieldExpressions.ts';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import {
  compileAggregate,
  compileFilterNode,
  resolveFilter,
  shapeAggregateRow,
  type ErrorPath,
  type FieldDefinition,
  type FieldMap,
  type FilterNode,
  type FilterTree,
  type GroupBucket,
  type ResolveFields,
} from '../../query/index.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { listItems, type ItemsReadContext } from '../items/queries.ts';
import { AUDIT_PANEL_FIELDS, readableFields, readableResolver, whitelisted } from './panelWhitelist.ts';
import { DEFAULT_PANEL_LIMIT, RELATIVE_RANGE, type PanelAggregate, type PanelQueryBody } from './schemas.ts';

/** One answer row: the group fields' values (a bucket's as an ISO time) and the aggregate's `value`. */
export type PanelRow = Record<string, unknown>;

export interface PanelPlan {
  siteId: string;
  source: 'items' | 'audit';
  /** The items' collection; null for the audit log. */
  collection: string | null;
  aggregate: PanelAggregate;
  field: string | null;
  groupBy: string[];
  bucket: GroupBucket | null;
  /** The panel's filter and its date range, as one filter of the query language. */
  filter: FilterTree | null;
  /** The same, resolved (what the audit source compiles). */
  node: FilterNode | null;
  limit: number;
  /** The collections whose writes change the answer: the panel's and those its filter reaches. */
  collections: string[];
  /** The query as given, normalized (defaults filled, keys ordered): with the site and the caller's rights, the cache key. */
  normalized: string;
  now: Date;
}

const invalid = (message: string, path: ErrorPath) => new AppError('VALIDATION_FAILED', message, { path });

/** The start of a relative range (`7d`, `3m`), in UTC calendar units for months and years. */
export function rangeStart(last: string, now: Date): Date {
  const [, count = '1', unit = 'd'] = RELATIVE_RANGE.exec(last) ?? [];
  const n = Number(count);
  const start = new Date(now);
  if (unit === 'h') start.setUTCHours(start.getUTCHours() - n);
  if (unit === 'd') start.setUTCDate(start.getUTCDate() - n);
  if (unit === 'w') start.setUTCDate(start.getUTCDate() - 7 * n);
  if (unit === 'm') start.setUTCMonth(start.getUTCMonth() - n);
  if (unit === 'y') start.setUTCFullYear(start.getUTCFullYear() - n);
  return start;
}

function checkAggregateField(aggregate: PanelAggregate, field: FieldDefinition, path: ErrorPath): void {
  const kind = kindOfField(field);
  if ((aggregate === 'sum' || aggregate === 'avg') && kind !== 'numeric') throw invalid(`"${aggregate}" needs a numeric field; "${field.field}" is not`, path);
  if ((aggregate === 'min' || aggregate === 'max') && (kind === 'json' || kind === 'boolean' || field.type === 'hash')) {
    throw invalid(`"${aggregate}" does not apply to "${field.field}"`, path);
  }
}

function isDateField(field: FieldDefinition): boolean {
  const kind = kindOfField(field);
  return kind === 'timestamptz' || (kind === 'dateText' && dateShapeOf(field.type) !== 'time');
}

/** Collections a resolved filter reaches through relations. */
function reachedCollections(node: FilterNode, into: Set<string>): void {
  if (node.kind === 'and' || node.kind === 'or') for (const child of node.children) reachedCollections(child, into);
  if (node.kind === 'relation') {
    into.add(node.collection);
    reachedCollections(node.child, into);
  }
}

/** Keys in a stable order, so that two spellings of one query share a cache entry. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, entry]) => entry !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Checks a panel query against the caller's whitelist and plans it; throws INVALID_FIELD (a name
 * outside the whitelist), VALIDATION_FAILED (a misfit: a sum over text, a bucket of a non-date) or
 * PERMISSION_DENIED (a collection the caller may not read; the audit log to a non-administrator).
 */
export function planPanelQuery(schema: SiteSchema, access: Access, query: PanelQueryBody, now: Date, path: ErrorPath = ['body', 'query']): PanelPlan {
  const source = query.source ?? 'items';
  let fields: FieldMap;
  let resolveFields: ResolveFields | undefined;
  let collection: string | null = null;
  if (source === 'audit') {
    if (!access.admin) throw permissionDenied('The audit log is a panel source for site administrators only', [...path, 'source']);
    fields = AUDIT_PANEL_FIELDS;
  } else {
    collection = query.collection!;
    if (!access.admin && !access.can('read', collection)) throw permissionDenied(`You may not read items of "${collection}"`, [...path, 'collection']);
    const found = schema.collections.get(collection);
    if (!found) throw invalid(`Unknown collection "${collection}"`, [...path, 'collection']);
    fields = readableFields(access, found);
    resolveFields = readableResolver(access, schema);
  }

  const field = query.field ?? null;
  if (field !== null) checkAggregateField(query.aggregate, whitelisted(fields, field, [...path, 'field']), [...path, 'field']);
  const groupBy = query.groupBy ?? [];
  groupBy.forEach((name, index) => {
    const at = [...path, 'groupBy', index];
    const definition = whitelisted(fields, name, at);
    if (kindOfField(definition) === 'json' || definition.type === 'hash') throw invalid(`Cannot group by "${name}"`, at);
    if (groupBy.indexOf(name) !== index || (query.bucket && query.dateRange?.field === name)) throw invalid(`"${name}" is grouped by twice`, at);
    if (name === 'value' || name === query.aggregate) throw invalid(`A group named "${name}" would hide the answer's value`, at);
  });

  const dynamic = dynamicValuesOf(access.principal, now);
  const filterContext = { ...dynamic, fields, ...(resolveFields ? { resolveFields } : {}), unknownFieldCode: 'INVALID_FIELD' as const };
  const parts: FilterTree[] = [];
  const nodes: FilterNode[] = [];
  if (query.filter) {
    parts.push(query.filter);
    nodes.push(resolveFilter(query.filter, { ...filterContext, path: [...path, 'filter'] }));
  }
  const range = query.dateRange;
  if (range) {
    const definition = whitelisted(fields, range.field, [...path, 'dateRange', 'field']);
    if (!isDateField(definition)) throw invalid(`"${range.field}" is not a date or a date-time`, [...path, 'dateRange', 'field']);
    const from = range.last !== undefined ? rangeStart(range.last, now).toISOString() : range.from;
    const bounds = { ...(from !== undefined ? { _gte: from } : {}), ...(range.to !== undefined ? { _lte: range.to } : {}) };
    if (Object.keys(bounds).length > 0) {
      const condition = { [range.field]: bounds };
      parts.push(condition);
      nodes.push(resolveFilter(condition, { ...filterContext, path: [...path, 'dateRange'] }));
    }
  }
  const reached = new Set<string>(collection ? [collection] : []);
  for (const node of nodes) reachedCollections(node, reached);

  const normalized = stableJson({ ...query, source, groupBy, limit: query.limit ?? DEFAULT_PANEL_LIMIT });
  return {
    siteId: access.siteId,
    source,
    collection,
    aggregate: query.aggregate,
    field,
    groupBy,
    bucket: query.bucket && range ? { field: range.field, unit: query.bucket } : null,
    filter: parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { _and: parts },
    node: nodes.length === 0 ? null : nodes.length === 1 ? nodes[0]! : { kind: 'and', children: nodes },
    limit: query.limit ?? DEFAULT_PANEL_LIMIT,
    collections: [...reached].sort(),
    normalized,
    now,
  };
}

const isoOf = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** `{ <groups>, value }` from the query language's aggregate row (`{ author, count: 3 }`, `{ author, sum: { views: 17 } }`). */
function panelRowOf(shaped: Record<string, unknown>, plan: PanelPlan): PanelRow {
  const row: PanelRow = {};
  if (plan.bucket) row[plan.bucket.field] = isoOf(shaped[plan.bucket.field]);
  for (const name of plan.groupBy) row[name] = isoOf(shaped[name]);
  const result = shaped[plan.aggregate];
  row.value = plan.field === null || (typeof result !== 'object' && result !== undefined) ? (result ?? null) : ((result as Record<string, unknown> | null)?.[plan.field] ?? null);
  return row;
}

/** Runs a plan; the answer's rows, at most `plan.limit`, ordered by their groups. */
export async function executePanelPlan(context: ItemsReadContext, access: Access, plan: PanelPlan, metadata: EventMetadata): Promise<PanelRow[]> {
  const aggregate = { [plan.aggregate]: [plan.field ?? '*'] };
  if (plan.source === 'audit') {
    const compiled = compileAggregate(aggregate, plan.groupBy, AUDIT_PANEL_FIELDS, 'a', plan.bucket);
    const where = plan.node ? compileFilterNode(plan.node, 'a') : sql`TRUE`;
    // The derived table names the collection of an entry's event; the planner flattens it, so the
    // site, the date range and a collection condition reach audit_log's indexes.
    const from = sql`(SELECT a.*, a.details->>'collection' AS collection FROM audit_log a WHERE a.site_id = ${plan.siteId}) a`;
    const rows = await context.database.withSiteReads(plan.siteId, (tx) =>
      tx.query<Record<string, unknown>>(
        compiled.groupBy
          ? sql`SELECT ${compiled.select} FROM ${from} WHERE ${where} GROUP BY ${compiled.groupBy} ORDER BY ${compiled.groupBy} LIMIT ${plan.limit}`
          : sql`SELECT ${compiled.select} FROM ${from} WHERE ${where}`,
      ),
    );
    return rows.map((row) => panelRowOf(shapeAggregateRow(row, compiled.columns), plan));
  }
  const collection = plan.collection!;
  const groupBy = plan.groupBy;
  const restrictions = await guardItemReadBy(context, access, collection, {
    filter: plan.filter,
    sort: [],
    deep: {},
    aggregate,
    groupBy: plan.bucket ? [plan.bucket.field, ...groupBy] : groupBy,
  });
  const result = await listItems(context, {
    siteId: plan.siteId,
    collection,
    principal: access.principal,
    restrictions,
    metadata,
    now: plan.now,
    query: {
      fields: null,
      filter: plan.filter,
      sort: [],
      limit: plan.limit,
      offset: 0,
      page: null,
      meta: 'none',
      aggregate,
      groupBy,
      bucket: plan.bucket,
      deep: {},
      search: null,
    },
  });
  return (result.data as Record<string, unknown>[]).map((row) => panelRowOf(row, plan));
}
