"use client";

import { useEffect, useRef } from "react";

// A modal on the native <dialog> element: focus trapping, Escape and the backdrop come from the browser, and
// its role is dialog, so tests and screen readers find it by its title.

export function Dialog({
  open,
  onClose,
  title,
  children,
  wide = false,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: React.ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className={`m-auto w-full rounded-lg border border-slate-200 dark:border-slate-700 p-0 shadow-xl backdrop:bg-slate-900/40 ${wide ? "max-w-3xl" : "max-w-md"}`}
    >
      {open && (
        <div className="space-y-3 p-4">
          <h2 className="text-base font-semibold text-slate-900 dark:text-slate-100">{title}</h2>
          {children}
        </div>
      )}
    </dialog>
  );
}
