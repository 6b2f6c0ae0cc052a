// A modal dialog on the browser's own <dialog> (showModal: focus kept inside, Escape closes, the page
// behind inert). The shared Radix dialog injects an inline <style> (its scroll lock), which the
// Studio's CSP (style-src 'self') refuses, so the history and review pages use this one.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function ModalDialog({ open, onOpenChange, title, children }: { open: boolean; onOpenChange(open: boolean): void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={() => onOpenChange(false)}>
      {open ? (
        <div className="stack">
          <h2 id={titleId}>{title}</h2>
          {children}
          <div className="row">
            <button type="button" className="dialog-close" onClick={() => onOpenChange(false)}>Close</button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
