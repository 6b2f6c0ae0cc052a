// Field maps over the columns of a read model other than items (the audit log): each API name is a
// column of the table, compared as its kind, and filtered only with the operators its indexes serve.
// The items' structural names (id, status, createdAt, ...) mean nothing here.
import { operatorFits } from './operators.ts';
import type { ComparisonOperator, FieldDefinition, FieldType, ReadModelColumn, ValueKind } from './types.ts';

export class ReadModelFields extends Map<string, FieldDefinition> {}

/** The field type that gives each kind its values' form (dates: a full ISO time). */
const TYPE_OF_KIND: Record<ValueKind, FieldType> = {
  text: 'string',
  numeric: 'decimal',
  boolean: 'boolean',
  dateText: 'dateTime',
  timestamptz: 'timestamp',
  json: 'json',
};

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

export function readModelFields(columns: Record<string, { column: string; kind: ValueKind; operators: readonly ComparisonOperator[] }>): ReadModelFields {
  const fields = new ReadModelFields();
  for (const [name, { column, kind, operators }] of Object.entries(columns)) {
    if (!COLUMN_NAME.test(column)) throw new Error(`Invalid column name: ${column}`);
    const misfit = operators.find((operator) => !operatorFits(operator, kind));
    if (misfit) throw new Error(`Operator ${misfit} does not apply to the ${kind} column ${column}`);
    const definition: ReadModelColumn = { name: column, kind, operators };
    fields.set(name, { field: name, type: TYPE_OF_KIND[kind], column: definition });
  }
  return fields;
}
