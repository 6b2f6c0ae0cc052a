// The list's filter, built as rows (field, operator, value) combined with _and, written as the JSON
// `filter` parameter of the items routes. Operators are offered by the field's type.
import { useId } from 'react';
import type { FieldInfo } from './api.ts';

export interface FilterRow {
  field: string;
  op: string;
  value: string;
}

const TEXT_OPS = ['_eq', '_neq', '_icontains', '_contains', '_starts_with', '_ends_with', '_in', '_nin', '_null', '_nnull'];
const ORDERED_OPS = ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_between', '_in', '_nin', '_null', '_nnull'];
const BOOLEAN_OPS = ['_eq', '_neq', '_null', '_nnull'];
const JSON_OPS = ['_has_key', '_json_contains', '_null', '_nnull'];

export const OP_LABELS: Record<string, string> = {
  _eq: 'equals', _neq: 'does not equal', _lt: 'less than', _lte: 'at most', _gt: 'greater than', _gte: 'at least',
  _between: 'between (a,b)', _in: 'is one of (a,b,…)', _nin: 'is none of (a,b,…)', _null: 'is empty', _nnull: 'is not empty',
  _contains: 'contains (case-sensitive)', _icontains: 'contains', _starts_with: 'starts with', _ends_with: 'ends with',
  _has_key: 'has key', _json_contains: 'contains JSON',
};

const NUMERIC = new Set(['integer', 'float', 'decimal', 'bigInteger']);
const ORDERED = new Set([...NUMERIC, 'date', 'time', 'dateTime', 'timestamp']);

export function operatorsFor(field: FieldInfo | undefined): string[] {
  if (!field) return TEXT_OPS;
  if (field.type === 'boolean') return BOOLEAN_OPS;
  if (field.type === 'json' || field.options?.translatable === true) return JSON_OPS;
  if (ORDERED.has(field.type)) return ORDERED_OPS;
  return TEXT_OPS;
}

const NO_VALUE = new Set(['_null', '_nnull']);

function coerce(field: FieldInfo | undefined, text: string): unknown {
  const trimmed = text.trim();
  if (field?.type === 'boolean') return trimmed === 'true';
  if (field && (field.type === 'integer' || field.type === 'float') && trimmed !== '' && !Number.isNaN(Number(trimmed))) return Number(trimmed);
  return text;
}

/** The rows as the JSON filter (undefined when there is none). */
export function filterOf(rows: FilterRow[], fields: FieldInfo[]): Record<string, unknown> | undefined {
  const terms = rows
    .filter((row) => row.field && row.op && (NO_VALUE.has(row.op) || row.value.trim() !== ''))
    .map((row) => {
      const field = fields.find((candidate) => candidate.field === row.field);
      let value: unknown;
      if (NO_VALUE.has(row.op)) value = true;
      else if (row.op === '_in' || row.op === '_nin' || row.op === '_between') value = row.value.split(',').map((part) => coerce(field, part.trim()));
      else if (row.op === '_json_contains') {
        try {
          value = JSON.parse(row.value);
        } catch {
          value = row.value;
        }
      } else value = coerce(field, row.value);
      return { [row.field]: { [row.op]: value } };
    });
  if (terms.length === 0) return undefined;
  return terms.length === 1 ? terms[0] : { _and: terms };
}

/** A stored JSON filter back as rows (null when it has a shape the rows cannot show). */
export function rowsOf(filter: Record<string, unknown> | undefined): FilterRow[] | null {
  if (!filter || Object.keys(filter).length === 0) return [];
  const terms = Array.isArray(filter._and) ? (filter._and as Record<string, unknown>[]) : [filter];
  const rows: FilterRow[] = [];
  for (const term of terms) {
    const entries = Object.entries(term);
    if (entries.length !== 1) return null;
    const [field, condition] = entries[0]!;
    if (field.startsWith('_') || !condition || typeof condition !== 'object') return null;
    const ops = Object.entries(condition as Record<string, unknown>);
    if (ops.length !== 1) return null;
    const [op, value] = ops[0]!;
    rows.push({ field, op, value: NO_VALUE.has(op) ? '' : Array.isArray(value) ? value.map(String).join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value) });
  }
  return rows;
}

export function FilterBuilder({ rows, fields, onChange }: { rows: FilterRow[]; fields: FieldInfo[]; onChange(rows: FilterRow[]): void }) {
  const base = useId();
  const set = (index: number, change: Partial<FilterRow>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="content-filters">
      <legend>Filters (all must match)</legend>
      {rows.length === 0 ? <p className="muted">No filter.</p> : null}
      {rows.map((row, index) => {
        const field = fields.find((candidate) => candidate.field === row.field);
        const ops = operatorsFor(field);
        const n = index + 1;
        return (
          <div className="row content-filter-row" key={index}>
            <select aria-label={`Filter ${n} field`} value={row.field} onChange={(event) => {
              const next = fields.find((candidate) => candidate.field === event.target.value);
              const nextOps = operatorsFor(next);
              set(index, { field: event.target.value, op: nextOps.includes(row.op) ? row.op : nextOps[0]! });
            }}>
              {fields.map((candidate) => <option key={candidate.field} value={candidate.field}>{candidate.field}</option>)}
            </select>
            <select aria-label={`Filter ${n} operator`} value={row.op} onChange={(event) => set(index, { op: event.target.value })}>
              {ops.map((op) => <option key={op} value={op}>{OP_LABELS[op] ?? op}</option>)}
            </select>
            {NO_VALUE.has(row.op) ? null : field?.type === 'boolean' ? (
              <select aria-label={`Filter ${n} value`} value={row.value} onChange={(event) => set(index, { value: event.target.value })}>
                <option value="">—</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : (
              <input id={`${base}-${index}`} aria-label={`Filter ${n} value`} value={row.value} onChange={(event) => set(index, { value: event.target.value })} />
            )}
            <button type="button" onClick={() => onChange(rows.filter((_, at) => at !== index))} aria-label={`Remove filter ${n}`}>Remove</button>
          </div>
        );
      })}
      <button type="button" disabled={fields.length === 0} onClick={() => onChange([...rows, { field: fields[0]!.field, op: operatorsFor(fields[0])[0]!, value: '' }])}>Add filter</button>
    </fieldset>
  );
}
