// A panel's form: its name and drawing, and its query (collection, aggregate, field, groups, filter,
// date range and bucket, limit) as docs/insights.md defines it. Errors land at the field the API names.
import { useState, type FormEvent } from 'react';
import { Field } from '../../ui/parts.tsx';
import { formErrors } from '../../ui/errors.ts';
import { PANEL_TYPES, type Panel, type PanelQuery, type PanelType } from './api.ts';

export interface PanelInput {
  name: string;
  type: PanelType;
  query: PanelQuery;
}

interface Draft {
  name: string;
  type: PanelType;
  source: 'items' | 'audit';
  collection: string;
  aggregate: PanelQuery['aggregate'];
  field: string;
  groupBy: string;
  filter: string;
  rangeField: string;
  last: string;
  bucket: string;
  limit: string;
}

function draftOf(panel: Panel | null): Draft {
  const query = panel?.query;
  return {
    name: panel?.name ?? '',
    type: panel?.type ?? 'bar',
    source: query?.source ?? 'items',
    collection: query?.collection ?? '',
    aggregate: query?.aggregate ?? 'count',
    field: query?.field ?? '',
    groupBy: (query?.groupBy ?? []).join(', '),
    filter: query?.filter ? JSON.stringify(query.filter, null, 2) : '',
    rangeField: query?.dateRange?.field ?? '',
    last: query?.dateRange?.last ?? '',
    bucket: query?.bucket ?? '',
    limit: query?.limit ? String(query.limit) : '',
  };
}

/** The draft as the API's query; a filter that is not JSON is refused here, at its field. */
function queryOf(draft: Draft): { query: PanelQuery } | { filterError: string } {
  const query: PanelQuery = { aggregate: draft.aggregate };
  if (draft.source === 'audit') query.source = 'audit';
  if (draft.collection.trim()) query.collection = draft.collection.trim();
  if (draft.field.trim()) query.field = draft.field.trim();
  const groups = draft.groupBy.split(',').map((group) => group.trim()).filter(Boolean);
  if (groups.length) query.groupBy = groups;
  if (draft.filter.trim()) {
    try {
      const parsed: unknown = JSON.parse(draft.filter);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { filterError: 'The filter must be a JSON object.' };
      query.filter = parsed as Record<string, unknown>;
    } catch {
      return { filterError: 'The filter is not valid JSON.' };
    }
  }
  if (draft.rangeField.trim()) query.dateRange = { field: draft.rangeField.trim(), ...(draft.last.trim() ? { last: draft.last.trim() } : {}) };
  if (draft.bucket) query.bucket = draft.bucket as NonNullable<PanelQuery['bucket']>;
  if (draft.limit.trim()) query.limit = Number(draft.limit);
  return { query };
}

/** The message of the API for a key of the panel's query (`body.query.<key>…`). */
function queryErrors(error: unknown): { fields: Record<string, string>; query: Record<string, string>; general: string[] } {
  const { fields, general } = formErrors(error);
  const query: Record<string, string> = {};
  const entries = (error as { errors?: { path?: (string | number)[]; message: string; code?: string }[] } | null)?.errors ?? [];
  for (const entry of entries) {
    const path = (entry.path ?? []).map(String);
    const at = path[0] === 'body' && path[1] === 'query' ? path[2] : undefined;
    if (at !== undefined && query[at] === undefined) query[at] = `${entry.message}${entry.code ? ` (${entry.code})` : ''}`;
  }
  if (fields.query && Object.keys(query).length === 0) general.push(fields.query);
  return { fields, query, general };
}

export function PanelForm({ panel, error, pending, submitLabel, onSubmit }: { panel: Panel | null; error: unknown; pending: boolean; submitLabel: string; onSubmit(input: PanelInput): void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(panel));
  const [filterError, setFilterError] = useState<string | undefined>();
  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const errors = queryErrors(error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const built = queryOf(draft);
    if ('filterError' in built) {
      setFilterError(built.filterError);
      return;
    }
    setFilterError(undefined);
    onSubmit({ name: draft.name, type: draft.type, query: built.query });
  };

  return (
    <form className="stack" onSubmit={submit} aria-label={submitLabel}>
      {errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>)}
      <Field label="Panel name" error={errors.fields.name}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.name} onChange={(event) => set('name')(event.target.value)} required maxLength={200} />}
      </Field>
      <div className="row">
        <Field label="Drawn as" error={errors.fields.type}>
          {(id) => (
            <select id={id} value={draft.type} onChange={(event) => set('type')(event.target.value as PanelType)}>
              {PANEL_TYPES.map((type) => <option key={type} value={type}>{type}</option>)}
            </select>
          )}
        </Field>
        <Field label="Source" error={errors.query.source}>
          {(id) => (
            <select id={id} value={draft.source} onChange={(event) => set('source')(event.target.value as Draft['source'])}>
              <option value="items">Items of a collection</option>
              <option value="audit">Audit log</option>
            </select>
          )}
        </Field>
        <Field label="Collection" error={errors.query.collection}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.collection} onChange={(event) => set('collection')(event.target.value)} disabled={draft.source === 'audit'} />}
        </Field>
      </div>
      <div className="row">
        <Field label="Aggregate" error={errors.query.aggregate}>
          {(id) => (
            <select id={id} value={draft.aggregate} onChange={(event) => set('aggregate')(event.target.value as PanelQuery['aggregate'])}>
              {(['count', 'sum', 'avg', 'min', 'max'] as const).map((aggregate) => <option key={aggregate} value={aggregate}>{aggregate}</option>)}
            </select>
          )}
        </Field>
        <Field label="Field" error={errors.query.field} hint="Required unless counting">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.field} onChange={(event) => set('field')(event.target.value)} />}
        </Field>
        <Field label="Group by" error={errors.query.groupBy} hint="Up to 3 fields, comma-separated">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.groupBy} onChange={(event) => set('groupBy')(event.target.value)} />}
        </Field>
      </div>
      <Field label="Filter (JSON)" error={filterError ?? errors.query.filter} hint='For example {"status": {"_eq": "published"}}'>
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={draft.filter} onChange={(event) => set('filter')(event.target.value)} />}
      </Field>
      <div className="row">
        <Field label="Date field" error={errors.query.dateRange} hint="For a date range and buckets">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.rangeField} onChange={(event) => set('rangeField')(event.target.value)} />}
        </Field>
        <Field label="Within the last" hint="e.g. 30d, 12w, 6m, 1y">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={draft.last} onChange={(event) => set('last')(event.target.value)} size={8} />}
        </Field>
        <Field label="Bucket" error={errors.query.bucket}>
          {(id) => (
            <select id={id} value={draft.bucket} onChange={(event) => set('bucket')(event.target.value)}>
              <option value="">None</option>
              {['hour', 'day', 'week', 'month', 'year'].map((bucket) => <option key={bucket} value={bucket}>{bucket}</option>)}
            </select>
          )}
        </Field>
        <Field label="Limit" error={errors.query.limit}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="number" min={1} max={1000} value={draft.limit} onChange={(event) => set('limit')(event.target.value)} />}
        </Field>
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={pending}>{submitLabel}</button>
      </div>
    </form>
  );
}
