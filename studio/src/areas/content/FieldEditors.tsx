// One editor per field, chosen by its interface and type: text, numbers, booleans, dates and times,
// JSON, selects (options.choices), colors, markdown and rich text, translatable values, m2o, files.
import type { ReactNode } from 'react';
import { Field } from '../../ui/parts.tsx';
import type { FieldInfo, RelationInfo } from './api.ts';
import { FilesPicker, M2OPicker } from './RelationEditors.tsx';
import { JsonEditor, MarkdownEditor, RichTextEditor, TranslationsEditor, type EditorProps } from './TextEditors.tsx';

/** The kind of editor a field gets (the tests name them; the form shows one per field). */
export type EditorKind =
  | 'string' | 'text' | 'markdown' | 'richtext' | 'number' | 'decimal' | 'boolean' | 'date' | 'time' | 'datetime'
  | 'json' | 'select' | 'color' | 'm2o' | 'files' | 'translations' | 'hash' | 'readonly';

export function editorKind(field: FieldInfo, m2o: RelationInfo | undefined): EditorKind {
  const ui = (field.interface ?? '').toLowerCase();
  if (m2o) return 'm2o';
  if (field.type === 'files') return 'files';
  if (field.options?.translatable === true) return 'translations';
  if (field.type === 'hash') return 'hash';
  if (ui.includes('markdown')) return 'markdown';
  if (ui.includes('rich') || ui.includes('wysiwyg') || ui.includes('html')) return 'richtext';
  if (Array.isArray(field.options?.choices) || ui.includes('select') || ui.includes('dropdown')) return Array.isArray(field.options?.choices) ? 'select' : 'string';
  switch (field.type) {
    case 'boolean': return 'boolean';
    case 'integer': case 'float': return 'number';
    case 'decimal': case 'bigInteger': return 'decimal';
    case 'date': return 'date';
    case 'time': return 'time';
    case 'dateTime': case 'timestamp': return 'datetime';
    case 'json': case 'geometry': return 'json';
    case 'color': return 'color';
    case 'text': case 'code': return 'text';
    default: return ui.includes('color') ? 'color' : 'string';
  }
}

function choicesOf(field: FieldInfo): { value: string; text: string }[] {
  const choices = Array.isArray(field.options?.choices) ? (field.options.choices as unknown[]) : [];
  return choices.map((choice) =>
    choice && typeof choice === 'object' ? { value: String((choice as { value: unknown }).value), text: String((choice as { text?: unknown }).text ?? (choice as { value: unknown }).value) } : { value: String(choice), text: String(choice) },
  );
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An ISO instant as the `datetime-local` input shows it (local time, to the second). */
function toLocalInput(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function ScalarEditor({ kind, field, id, describedBy, value, onChange }: EditorProps & { kind: EditorKind; field: FieldInfo }) {
  const common = { id, 'aria-describedby': describedBy, required: field.required === true };
  const text = value === null || value === undefined ? '' : String(value);
  switch (kind) {
    case 'boolean':
      return <input {...common} required={false} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />;
    case 'number':
      return (
        <input {...common} type="number" step={field.type === 'integer' ? 1 : 'any'} value={text}
          onChange={(event) => onChange(event.target.value === '' ? null : Number(event.target.value))} />
      );
    case 'decimal':
      return <input {...common} inputMode="decimal" value={text} onChange={(event) => onChange(event.target.value === '' ? null : event.target.value)} />;
    case 'date':
      return <input {...common} type="date" value={text.slice(0, 10)} onChange={(event) => onChange(event.target.value || null)} />;
    case 'time':
      return <input {...common} type="time" step={1} value={text.slice(0, 8)} onChange={(event) => onChange(event.target.value ? (event.target.value.length === 5 ? `${event.target.value}:00` : event.target.value) : null)} />;
    case 'datetime':
      return (
        <input {...common} type="datetime-local" step={1} value={toLocalInput(value)}
          onChange={(event) => onChange(event.target.value ? new Date(event.target.value).toISOString() : null)} />
      );
    case 'select':
      return (
        <select {...common} value={text} onChange={(event) => onChange(event.target.value === '' ? null : event.target.value)}>
          <option value="">—</option>
          {choicesOf(field).map((choice) => <option key={choice.value} value={choice.value}>{choice.text}</option>)}
        </select>
      );
    case 'color':
      return (
        <span className="row">
          <input {...common} type="color" value={/^#[0-9a-f]{6}$/i.test(text) ? text : '#000000'} onChange={(event) => onChange(event.target.value)} />
          <code>{text || 'none'}</code>
        </span>
      );
    case 'text':
      return <textarea {...common} value={text} onChange={(event) => onChange(event.target.value)} rows={4} />;
    case 'hash':
      return <input {...common} type="password" autoComplete="new-password" placeholder={value ? 'Set (unchanged)' : ''} value={value === '**********' ? '' : text} onChange={(event) => onChange(event.target.value || (value === '**********' ? '**********' : null))} />;
    default:
      return <input {...common} type="text" value={text} onChange={(event) => onChange(event.target.value === '' && !field.required ? null : event.target.value)} />;
  }
}

export interface FieldEditorProps {
  field: FieldInfo;
  m2o: RelationInfo | undefined;
  value: unknown;
  error: string | undefined;
  defaultLanguage: string;
  onChange(value: unknown): void;
  onProblem(problem: string | null): void;
}

export function fieldLabel(field: FieldInfo): string {
  const words = field.field.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function FieldEditor({ field, m2o, value, error, defaultLanguage, onChange, onProblem }: FieldEditorProps) {
  const kind = editorKind(field, m2o);
  const label = fieldLabel(field);
  const hint = [field.required ? 'Required' : null, kind === 'm2o' ? `An item of ${m2o!.relatedCollection}` : null].filter(Boolean).join(' · ') || undefined;
  return (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      {(id, describedBy): ReactNode => {
        const props: EditorProps = { id, describedBy, value, onChange, onProblem, label };
        switch (kind) {
          case 'markdown': return <MarkdownEditor {...props} />;
          case 'richtext': return <RichTextEditor {...props} />;
          case 'json': return <JsonEditor {...props} />;
          case 'translations': return <TranslationsEditor {...props} defaultLanguage={defaultLanguage} multiline={field.type === 'text'} />;
          case 'm2o': return <M2OPicker {...props} related={m2o!.relatedCollection!} />;
          case 'files': return <FilesPicker {...props} />;
          default: return <ScalarEditor {...props} kind={kind} field={field} />;
        }
      }}
    </Field>
  );
}
