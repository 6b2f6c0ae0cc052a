// Small parts every area uses: a labelled field with its error, a query's loading and error states,
// a page heading, and a modal dialog.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { errorText } from './errors.ts';

export function Field({ label, error, hint, children }: { label: string; error?: string | undefined; hint?: string; children: (id: string, describedBy: string | undefined) => ReactNode }) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field" data-invalid={error ? 'true' : undefined}>
      <label htmlFor={id}>{label}</label>
      {children(id, describedBy)}
      {hint ? <span id={hintId} className="hint">{hint}</span> : null}
      {error ? <span id={errorId} className="field-error" role="alert">{error}</span> : null}
    </div>
  );
}

export function QueryState({ query, empty }: { query: { isPending: boolean; error: unknown }; empty?: string }) {
  if (query.error) return <p role="alert" className="alert">{errorText(query.error)}</p>;
  if (query.isPending) return <p role="status" className="muted">Loading…</p>;
  return empty ? <p className="muted">{empty}</p> : null;
}

export function ErrorNote({ error }: { error: unknown }) {
  return error ? <p role="alert" className="alert">{errorText(error)}</p> : null;
}

export function PageHeader({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  return (
    <div className="spread">
      <div>
        <h1>{title}</h1>
        {children}
      </div>
      {actions ? <div className="row">{actions}</div> : null}
    </div>
  );
}

/**
 * A modal dialog on the native <dialog> (showModal: focus kept inside, Escape closes, the page behind
 * inert), labelled by its title. Not Radix's: it locks scrolling with an injected <style> element,
 * which the Studio's CSP (style-src 'self') refuses.
 */
export function Dialog({ open, onOpenChange, title, children }: { open: boolean; onOpenChange(open: boolean): void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog-content" aria-labelledby={titleId} onClose={() => onOpenChange(false)}>
      <h2 id={titleId}>{title}</h2>
      {open ? children : null}
      <button type="button" className="dialog-close" onClick={() => onOpenChange(false)}>Close</button>
    </dialog>
  );
}

/** A destructive action behind the browser's confirmation (a native prompt: focus and Escape for free). */
export function ConfirmButton({ label, question, onConfirm, children = 'Delete' }: { label: string; question: string; onConfirm(): void; children?: ReactNode }) {
  return (
    <button type="button" className="danger" aria-label={label} onClick={() => window.confirm(question) && onConfirm()}>
      {children}
    </button>
  );
}

/**
 * Previous and next through pages of `pageSize`. `count` names what is counted (`['entry', 'entries']`)
 * to show the total beside the page; `previous` and `next` rename the buttons (`Newer`, `Older`).
 */
export function Pager({ page, pageSize, total, onPage, label, count, previous = 'Previous', next = 'Next' }: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
  label: string;
  count?: [singular: string, plural: string];
  previous?: string;
  next?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>{previous}</button>
      <span>
        Page {page} of {pages}
        {count ? ` (${total} ${total === 1 ? count[0] : count[1]})` : null}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>{next}</button>
    </nav>
  );
}
