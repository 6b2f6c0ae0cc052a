// The whitelist of a panel query (docs/insights.md): the fields it may name are the fields the
// filter compiler resolves (src/query lookupField and resolveFilter) restricted to what the caller
// may read. Anything else, an unknown, unreadable, to-many or pii/phi field, or a name that is no
// field name at all (`title"; drop table`, `data->>'x'`), is 400 INVALID_FIELD with its path.
import { AppError } from '../../../domain/shared/appError.ts';
import type { Access } from '../../access/access.ts';
import { canReadField } from '../../access/itemAccess.ts';
import { isToManyField, isValidName, lookupField, STRUCTURAL_COLUMNS } from '../../query/fieldExpressions.ts';
import { readModelFields, ReadModelFields, type ErrorPath, type FieldDefinition, type FieldMap, type ResolveFields } from '../../query/index.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { AUDIT_FIELDS } from '../audit/queries.ts';

export const invalidField = (message: string, path: ErrorPath) => new AppError('INVALID_FIELD', message, { path });

/**
 * The fields of `collection` that `access` may read and a panel may name, as a field map whose
 * lookups are exactly its entries (a ReadModelFields: the items' structural names are in it only
 * when readable). Definitions are the collection's own, so filters resolve as the items read path
 * compiles them.
 */
export function readableFields(access: Access, collection: CollectionSchema): FieldMap {
  const fields = new ReadModelFields();
  const readable = (name: string) => access.admin || canReadField(access, collection.name, name);
  for (const [name, structural] of STRUCTURAL_COLUMNS) if (readable(name)) fields.set(name, { field: name, type: structural.type });
  for (const [name, field] of collection.queryFields) {
    if (STRUCTURAL_COLUMNS.has(name) || !readable(name)) continue;
    if (isToManyField(field) || field.sealed || collection.sensitiveFields.has(name)) continue;
    fields.set(name, field);
  }
  return fields;
}

/** readableFields of every collection the caller may read: a relational filter (m2o) reaches only those. */
export function readableResolver(access: Access, schema: SiteSchema): ResolveFields {
  const maps = new Map<string, FieldMap | undefined>();
  return (name) => {
    if (!maps.has(name)) {
      const collection = schema.collections.get(name);
      maps.set(name, collection && (access.admin || access.can('read', name)) ? readableFields(access, collection) : undefined);
    }
    return maps.get(name);
  };
}

/** A field the panel names, resolved through the whitelist, or INVALID_FIELD at `path`. */
export function whitelisted(fields: FieldMap, name: string, path: ErrorPath): FieldDefinition {
  const field = isValidName(name) ? lookupField(fields, name) : undefined;
  if (!field) throw invalidField(`"${name}" is not a field this panel may read`, path);
  return field;
}

/**
 * The audit log as a panel source (site administrators only): the audit list's columns (without
 * `details`, whose conditions need the list's index guards) and `collection`, the collection an
 * entry's event names (`details->>'collection'`: item and schema events), a column of the derived
 * table the panel reads (auditSource in panelQuery.ts). `occurredAt` takes the date range and bucket.
 */
export const AUDIT_PANEL_FIELDS: FieldMap = (() => {
  const columns = readModelFields({ collection: { column: 'collection', kind: 'text', operators: ['_eq', '_neq', '_in', '_nin', '_null', '_nnull'] } });
  for (const [name, field] of AUDIT_FIELDS) if (name !== 'details') columns.set(name, field);
  return columns;
})();
