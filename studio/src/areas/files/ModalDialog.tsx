// A modal dialog on the native <dialog> element (showModal: the rest of the page inert, Escape closes,
// focus moves in and back). The shared Radix dialog injects an inline <style> element (its scroll
// lock), which the Studio's CSP (`style-src 'self'`) refuses; the native element needs none.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function ModalDialog({ open, onOpenChange, title, children }: { open: boolean; onOpenChange(open: boolean): void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={() => onOpenChange(false)}>
      {open ? (
        <div className="stack">
          <h2 id={titleId}>{title}</h2>
          {children}
          <div>
            <button type="button" className="dialog-close" onClick={() => onOpenChange(false)}>
              Close
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
