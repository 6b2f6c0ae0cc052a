// A modal confirmation on the native <dialog> (showModal: focus moved in and kept there, Escape
// closes, the page behind inert). The shared Radix dialog injects a <style> element for its scroll
// lock, which the Studio's CSP (style-src 'self') refuses; the native one needs none.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function ConfirmDialog({ open, onOpenChange, title, children }: { open: boolean; onOpenChange(open: boolean): void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="release-dialog" aria-labelledby={titleId} onClose={() => onOpenChange(false)}>
      <div className="stack">
        <h2 id={titleId}>{title}</h2>
        {open ? children : null}
        <div className="row">
          <button type="button" onClick={() => onOpenChange(false)}>Cancel</button>
        </div>
      </div>
    </dialog>
  );
}
