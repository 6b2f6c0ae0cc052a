// Checks a preset's query with the query language of the items routes, against the collection's
// fields: the field selection, the filter, the sort. Each refusal says where, under `body.query`.
import { AppError } from '../../../domain/shared/appError.ts';
import { compileSort, parseFieldSelection, parseSortList, resolveFilter, type ErrorPath } from '../../query/index.ts';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import { parseFieldList } from '../../query/parseListQuery.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import type { Principal } from '../../auth/principal.ts';
import type { PresetQuery } from './schemas.ts';

/** The error of `check` at `path`, whatever path the query module gave it. */
function refusedAt(path: ErrorPath, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof AppError && error.status === 400) throw error.at(path);
    throw error;
  }
}

export function checkPresetQuery(schema: SiteSchema, collection: CollectionSchema, query: PresetQuery, principal: Principal, now: Date, path: ErrorPath): void {
  (query.fields ?? []).forEach((field, index) =>
    refusedAt([...path, 'fields', index], () => parseFieldSelection(parseFieldList([field], ['fields']), collection.name, schema.resolveFields)),
  );
  if (query.filter !== undefined) {
    resolveFilter(query.filter, { ...dynamicValuesOf(principal, now), fields: collection.queryFields, resolveFields: schema.resolveFields, path: [...path, 'filter'] });
  }
  (query.sort ?? []).forEach((term, index) =>
    refusedAt([...path, 'sort', index], () => compileSort(parseSortList([term], ['sort']), collection.queryFields, 'i')),
  );
}
