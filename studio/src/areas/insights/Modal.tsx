// A modal dialog on the native <dialog> (showModal: focus kept inside, Escape closes, the page behind
// inert). The shared Radix Dialog injects a <style> element to lock scrolling, which the Studio's CSP
// (style-src 'self') refuses; the native element needs no inline style.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Modal({ open, onClose, title, children }: { open: boolean; onClose(): void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog-content insights-modal" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId}>{title}</h2>
      {open ? children : null}
      <button type="button" className="dialog-close" onClick={onClose}>Close</button>
    </dialog>
  );
}
