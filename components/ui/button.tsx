import type { ComponentPropsWithRef } from "react";

// A disabled button recedes in both themes: a filled one becomes a faint surface with muted text (a lighter tint
// of its colour read as more prominent than the enabled buttons beside it on the dark background), and hover
// changes only enabled buttons.
const DISABLED_FILLED = "disabled:bg-slate-100 disabled:text-slate-400 dark:disabled:bg-slate-800/70 dark:disabled:text-slate-500";

const VARIANTS = {
  primary: `bg-slate-900 dark:bg-slate-100 text-white dark:text-slate-900 enabled:hover:bg-slate-700 dark:enabled:hover:bg-slate-300 ${DISABLED_FILLED}`,
  secondary:
    "border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 enabled:hover:bg-slate-50 dark:enabled:hover:bg-slate-800 disabled:border-slate-200 disabled:text-slate-400 dark:disabled:border-slate-700 dark:disabled:bg-transparent dark:disabled:text-slate-500",
  danger: `bg-red-700 text-white enabled:hover:bg-red-600 ${DISABLED_FILLED}`,
  approve: `bg-emerald-700 text-white enabled:hover:bg-emerald-600 ${DISABLED_FILLED}`,
  ghost:
    "text-slate-600 dark:text-slate-300 enabled:hover:bg-slate-100 dark:enabled:hover:bg-slate-800 enabled:hover:text-slate-900 dark:enabled:hover:text-slate-100 disabled:text-slate-300 dark:disabled:text-slate-600",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;

export function Button({
  variant = "secondary",
  size = "md",
  className = "",
  ...props
}: ComponentPropsWithRef<"button"> & { variant?: ButtonVariant; size?: "sm" | "md" }) {
  const sizing = size === "sm" ? "px-2 py-0.5 text-xs" : "px-3 py-1.5 text-sm";
  return (
    <button
      type="button"
      {...props}
      className={`inline-flex items-center gap-1.5 rounded font-medium transition-colors disabled:cursor-not-allowed ${sizing} ${VARIANTS[variant]} ${className}`}
    />
  );
}

export function Kbd({ children }: { children: React.ReactNode }) {
  return (
    <kbd className="rounded border border-slate-300 dark:border-slate-600 bg-slate-50 dark:bg-slate-800 px-1 font-mono text-[10px] leading-4 text-slate-600 dark:text-slate-300">
      {children}
    </kbd>
  );
}
