// A collection's fields: the table, and a dialog that adds or edits one (type, interface, options
// with a select's choices, required, sort). Removing a field asks first.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ConfirmButton, Dialog, ErrorNote, Field, QueryState } from '../../ui/parts.tsx';
import { GeneralErrors, useFormErrors } from './common.tsx';

export const FIELD_TYPES = [
  'string', 'text', 'boolean', 'integer', 'float', 'decimal', 'bigInteger', 'dateTime', 'date', 'time', 'timestamp',
  'uuid', 'hash', 'slug', 'code', 'color', 'json', 'csv', 'geometry', 'files',
] as const;
type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldRow {
  field: string;
  type: FieldType;
  interface?: string | null;
  options?: Record<string, unknown> | null;
  required?: boolean;
  sort?: number | null;
}

export function useFields(collection: string) {
  const client = useClient();
  return useQuery({
    queryKey: ['admin', 'fields', collection],
    queryFn: async () => (await client.api.GET('/api/v1/fields/{collection}', { params: { path: { collection } } })).data!.data as FieldRow[],
  });
}

export function FieldsSection({ collection }: { collection: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const fields = useFields(collection);
  const [editing, setEditing] = useState<FieldRow | 'new' | null>(null);
  const remove = useMutation({
    mutationFn: async (field: string) => client.api.DELETE('/api/v1/fields/{collection}/{field}', { params: { path: { collection, field } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'fields', collection] }),
  });
  const rows = [...(fields.data ?? [])].sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0));
  return (
    <section className="stack" aria-labelledby="fields-heading">
      <div className="spread">
        <h2 id="fields-heading">Fields</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>Add field</button>
      </div>
      <QueryState query={fields} empty={fields.data && rows.length === 0 ? 'No fields yet.' : undefined} />
      <ErrorNote error={remove.error} />
      {rows.length > 0 ? (
        <table className="data" aria-label="Fields">
          <thead>
            <tr><th>Field</th><th>Type</th><th>Interface</th><th>Required</th><th>Sort</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.field}>
                <td>{row.field}</td>
                <td>{row.type}</td>
                <td>{row.interface ?? '—'}</td>
                <td>{row.required ? 'yes' : 'no'}</td>
                <td>{row.sort ?? '—'}</td>
                <td className="row">
                  <button type="button" aria-label={`Edit field ${row.field}`} onClick={() => setEditing(row)}>Edit</button>
                  <ConfirmButton label={`Delete field ${row.field}`} question={`Remove the field ${row.field}?`} onConfirm={() => remove.mutate(row.field)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Dialog open={editing !== null} onOpenChange={(open) => (open ? null : setEditing(null))} title={editing === 'new' || editing === null ? 'Add a field' : `Edit field ${editing.field}`}>
        {editing !== null ? <FieldForm collection={collection} existing={editing === 'new' ? null : editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </section>
  );
}

function FieldForm({ collection, existing, onDone }: { collection: string; existing: FieldRow | null; onDone(): void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [field, setField] = useState(existing?.field ?? '');
  const [type, setType] = useState<FieldType>(existing?.type ?? 'string');
  const [widget, setWidget] = useState(existing?.interface ?? '');
  const initialChoices = Array.isArray(existing?.options?.choices)
    ? (existing.options.choices as unknown[]).map((choice) => (typeof choice === 'object' && choice !== null && 'value' in choice ? String((choice as { value: unknown }).value) : String(choice))).join('\n')
    : '';
  const [choices, setChoices] = useState(initialChoices);
  const { choices: _dropped, ...otherOptions } = existing?.options ?? {};
  const [options, setOptions] = useState(Object.keys(otherOptions).length > 0 ? JSON.stringify(otherOptions, null, 2) : '');
  const [required, setRequired] = useState(existing?.required === true);
  const [sort, setSort] = useState(existing?.sort == null ? '' : String(existing.sort));
  const [errors, setErrors] = useFormErrors();
  const [optionsError, setOptionsError] = useState<string | undefined>();

  const save = useMutation({
    mutationFn: async (body: { type: FieldType; interface: string | null; options: Record<string, unknown> | null; required: boolean; sort: number | null }) => {
      if (existing) {
        return client.api.PATCH('/api/v1/fields/{collection}/{field}', { params: { path: { collection, field: existing.field } }, body });
      }
      return client.api.POST('/api/v1/fields/{collection}', { params: { path: { collection } }, body: { ...body, field: field.trim() } });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'fields', collection] });
      onDone();
    },
    onError: setErrors,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    let parsed: Record<string, unknown> = {};
    if (options.trim()) {
      try {
        const value: unknown = JSON.parse(options);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        parsed = value as Record<string, unknown>;
      } catch {
        setOptionsError('Options are a JSON object, e.g. {"placeholder": "Title"}');
        return;
      }
    }
    setOptionsError(undefined);
    const list = choices.split('\n').map((line) => line.trim()).filter(Boolean);
    if (list.length > 0) parsed.choices = list.map((value) => ({ text: value, value }));
    save.mutate({ type, interface: widget.trim() || null, options: Object.keys(parsed).length > 0 ? parsed : null, required, sort: sort.trim() === '' ? null : Number(sort) });
  }

  return (
    <form className="stack" onSubmit={submit}>
      {existing ? null : (
        <Field label="Field name" error={errors.fields.field}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={field} onChange={(event) => setField(event.target.value)} required />}
        </Field>
      )}
      <Field label="Type" error={errors.fields.type}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={type} onChange={(event) => setType(event.target.value as FieldType)}>
            {FIELD_TYPES.map((value) => <option key={value} value={value}>{value}</option>)}
          </select>
        )}
      </Field>
      <Field label="Interface" error={errors.fields.interface} hint="The editor widget, e.g. input, textarea, select-dropdown, boolean">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={widget} onChange={(event) => setWidget(event.target.value)} />}
      </Field>
      <Field label="Choices" hint="For a select: one value per line">
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={choices} onChange={(event) => setChoices(event.target.value)} rows={3} />}
      </Field>
      <Field label="Other options (JSON)" error={optionsError ?? errors.fields.options}>
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={options} onChange={(event) => setOptions(event.target.value)} rows={3} />}
      </Field>
      <label className="row">
        <input type="checkbox" checked={required} onChange={(event) => setRequired(event.target.checked)} /> Required
      </label>
      <Field label="Sort" error={errors.fields.sort}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="number" value={sort} onChange={(event) => setSort(event.target.value)} />}
      </Field>
      <GeneralErrors errors={errors} placed={['field', 'type', 'interface', 'options', 'sort']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>{existing ? 'Save field' : 'Add field'}</button>
      </div>
    </form>
  );
}
