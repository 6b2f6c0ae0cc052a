// A field-by-field diff of two states of an item: each changed field with its old value struck
// through and its new value beside it. System fields (id, timestamps) are left out.
import { SYSTEM_FIELDS, showValue, type Json } from './api.ts';

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left ?? null) === JSON.stringify(right ?? null);
}

/** The content fields whose values differ between the two states, sorted. */
export function changedFields(before: Json | null, after: Json | null, only?: string[]): string[] {
  const keys = only ?? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys.filter((key) => !SYSTEM_FIELDS.has(key) && !same(before?.[key], after?.[key])).sort();
}

export function Diff({ label, before, after, beforeLabel, afterLabel, only }: {
  label: string;
  before: Json | null;
  after: Json | null;
  beforeLabel: string;
  afterLabel: string;
  /** Compare only these fields (e.g. the `changes` a compare answered). */
  only?: string[];
}) {
  const fields = changedFields(before, after, only);
  if (fields.length === 0) return <p className="muted">No field differs.</p>;
  return (
    <table className="data" aria-label={label}>
      <thead>
        <tr><th scope="col">Field</th><th scope="col">{beforeLabel}</th><th scope="col">{afterLabel}</th></tr>
      </thead>
      <tbody>
        {fields.map((field) => (
          <tr key={field}>
            <th scope="row">{field}</th>
            <td>{before && before[field] !== undefined ? <del className="diff-removed">{showValue(before[field])}</del> : <span className="muted">—</span>}</td>
            <td>{after && after[field] !== undefined ? <ins className="diff-added">{showValue(after[field])}</ins> : <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** An item's content fields and values, as a table. */
export function ValuesTable({ label, values }: { label: string; values: Json }) {
  const fields = Object.keys(values).filter((key) => !SYSTEM_FIELDS.has(key)).sort();
  return (
    <table className="data" aria-label={label}>
      <thead>
        <tr><th scope="col">Field</th><th scope="col">Value</th></tr>
      </thead>
      <tbody>
        {fields.map((field) => (
          <tr key={field}><th scope="row">{field}</th><td>{showValue(values[field])}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
