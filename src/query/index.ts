// The query language: parse list parameters, validate filters against fields, compile to SQL or
// evaluate in memory. Items, permissions, GraphQL, delivery and the audit log all go through here.
export * from './types.ts';
export { fieldExpression, fieldTextExpression, STRUCTURAL_COLUMNS, valueKindOf } from './fieldExpressions.ts';
export { parseListQuery, parseSortList, parseNulls, DEFAULT_LIMIT, MAX_LIMIT } from './parseListQuery.ts';
export { parseFilterParam, parseJsonFilter, coerceBracketFilter } from './parseFilter.ts';
export { resolveFilter, MAX_JSON_PATH_DEPTH, MAX_RELATION_DEPTH, type FilterContext } from './resolveFilter.ts';
export { compileFilter, compileFilterNode, ITEMS_TABLE, type CompileFilterContext } from './compileFilter.ts';
export { evaluateFilter, evaluateFilterNode, type EvaluateFilterContext } from './evaluateFilter.ts';
export { compileSort } from './compileSort.ts';
export { compileAggregate, shapeAggregateRow, type AggregateColumn, type CompiledAggregate } from './compileAggregate.ts';
export { parseFieldSelection, type AnyItemSelection, type FieldSelection, type RelationSelection } from './parseFieldSelection.ts';
export { operatorFits, operatorsFor } from './operators.ts';
export { readModelFields, ReadModelFields } from './readModelFields.ts';
export type { DynamicValueContext } from './dynamicValues.ts';
