"use client";

import { useCallback, useEffect, useRef, useState } from "react";

// A menu or small dialog opened from a button (Columns, Views, Export): open and closed by its button, closed by
// Escape — which gives the focus back to that button, where the keyboard user was — and by a press outside it.

export function usePopover() {
  const [open, setOpen] = useState(false);
  /** wraps the button and the popover: a press inside either does not close it */
  const box = useRef<HTMLDivElement>(null);
  /** the button that opens it */
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      toggle.current?.focus();
    };
    const onPress = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onPress);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onPress);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const flip = useCallback(() => setOpen((v) => !v), []);
  return { open, setOpen, flip, box, toggle };
}
