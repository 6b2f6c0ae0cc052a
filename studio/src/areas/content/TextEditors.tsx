// Editors of text that needs more than an input: markdown (a textarea and its preview rendered with
// marked, sanitized with DOMPurify), rich text (HTML written in a textarea, shown sanitized), JSON (a
// textarea checked as it is typed) and translatable fields (one value per language).
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo, useState } from 'react';

export interface EditorProps<T = unknown> {
  id: string;
  describedBy: string | undefined;
  value: T;
  onChange(value: unknown): void;
  /** Reports a value the editor cannot turn into the API's form yet (null: it can). */
  onProblem?(problem: string | null): void;
  label: string;
}

// An image the author wrote without a text alternative is shown as decorative rather than unlabelled.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', '');
});

function Preview({ html, label }: { html: string; label: string }) {
  // Inline handlers are renamed before DOMPurify's parse: Chromium reports a CSP violation for each one
  // even in the sanitizer's inert document, where none runs. DOMPurify then drops the renamed attribute.
  const clean = useMemo(() => DOMPurify.sanitize(html.replace(/(\s)on([a-z]+\s*=)/gi, '$1data-blocked-on$2'), { FORBID_ATTR: ['style'], ALLOW_DATA_ATTR: false }), [html]);
  return (
    <div className="content-preview card" role="region" aria-label={`${label} preview`}>
      {/* Sanitized with DOMPurify just above: no script, handler or javascript: URL survives. */}
      <div dangerouslySetInnerHTML={{ __html: clean }} />
    </div>
  );
}

export function MarkdownEditor({ id, describedBy, value, onChange, label }: EditorProps) {
  const text = typeof value === 'string' ? value : '';
  const html = useMemo(() => marked.parse(text, { async: false }), [text]);
  return (
    <div className="content-split">
      <textarea id={id} aria-describedby={describedBy} value={text} onChange={(event) => onChange(event.target.value)} rows={8} />
      <Preview html={html} label={label} />
    </div>
  );
}

export function RichTextEditor({ id, describedBy, value, onChange, label }: EditorProps) {
  const text = typeof value === 'string' ? value : '';
  return (
    <div className="content-split">
      <textarea id={id} aria-describedby={describedBy} value={text} onChange={(event) => onChange(event.target.value)} rows={8} spellCheck />
      <Preview html={text} label={label} />
    </div>
  );
}

export function JsonEditor({ id, describedBy, value, onChange, onProblem }: EditorProps) {
  const [text, setText] = useState(() => (value === undefined || value === null ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <textarea
        id={id}
        aria-describedby={describedBy}
        aria-invalid={problem ? true : undefined}
        className="content-code"
        value={text}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          if (next.trim() === '') {
            setProblem(null);
            onProblem?.(null);
            onChange(null);
            return;
          }
          try {
            onChange(JSON.parse(next));
            setProblem(null);
            onProblem?.(null);
          } catch (error) {
            const message = `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
            setProblem(message);
            onProblem?.(message);
          }
        }}
        rows={6}
      />
      {/* A parse problem is shown at the field (onProblem), as the service's refusals are. */}
      {problem ? null : <span className="muted content-small">Valid JSON</span>}
    </>
  );
}

/** A translatable field: `{ "<lang>": value }`, one input per language, languages added by tag. */
export function TranslationsEditor({ id, describedBy, value, onChange, label, defaultLanguage, multiline }: EditorProps & { defaultLanguage: string; multiline: boolean }) {
  const map: Record<string, string> = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : typeof value === 'string' ? { [defaultLanguage]: value } : {};
  const languages = [...new Set([defaultLanguage, ...Object.keys(map)])];
  const [adding, setAdding] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const set = (language: string, text: string) => onChange({ ...map, [language]: text });
  const add = () => {
    let tag: string;
    try {
      tag = Intl.getCanonicalLocales(adding.trim())[0] ?? '';
    } catch {
      setProblem(`"${adding}" is not a language tag`);
      return;
    }
    if (!tag) return;
    setProblem(null);
    onChange({ ...map, [tag]: map[tag] ?? '' });
    setAdding('');
  };
  return (
    <fieldset className="content-translations" id={id} aria-describedby={describedBy}>
      <legend className="sr-only">{label} by language</legend>
      {languages.map((language, index) => {
        const inputId = `${id}-${language}`;
        return (
          <div key={language} className="content-translation">
            <label htmlFor={index === 0 ? `${id}-first` : inputId}>
              {language}
              {language === defaultLanguage ? <span className="muted"> (default)</span> : null}
            </label>
            {multiline ? (
              <textarea id={index === 0 ? `${id}-first` : inputId} aria-label={`${label} (${language})`} value={map[language] ?? ''} onChange={(event) => set(language, event.target.value)} rows={3} />
            ) : (
              <input id={index === 0 ? `${id}-first` : inputId} aria-label={`${label} (${language})`} value={map[language] ?? ''} onChange={(event) => set(language, event.target.value)} />
            )}
          </div>
        );
      })}
      <div className="row">
        <input aria-label={`Add a language to ${label}`} placeholder="fr, de, pt-BR…" value={adding} onChange={(event) => setAdding(event.target.value)} size={10} />
        <button type="button" onClick={add} disabled={adding.trim() === ''}>Add language</button>
      </div>
      {problem ? <span className="field-error" role="alert">{problem}</span> : null}
    </fieldset>
  );
}
