// A modal dialog on the native <dialog> element (focus kept inside, Escape closes, labelled by its
// title). The shared Radix dialog injects an inline <style> (its scroll lock), which the Studio's CSP
// refuses; this one needs none.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import './admin.css';

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
    <dialog ref={ref} className="admin-dialog" aria-labelledby={titleId} onClose={() => onOpenChange(false)}>
      {open ? (
        <>
          <h2 id={titleId}>{title}</h2>
          {children}
          <button type="button" className="dialog-close" onClick={() => onOpenChange(false)}>Close</button>
        </>
      ) : null}
    </dialog>
  );
}
