import type { ComponentPropsWithRef } from "react";

const VARIANTS = {
  primary:
    "bg-slate-900 dark:bg-slate-100 text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300 disabled:bg-slate-400 dark:disabled:bg-slate-500",
  secondary:
    "border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 hover:bg-slate-50 dark:hover:bg-slate-800 disabled:text-slate-400 dark:disabled:text-slate-600",
  danger: "bg-red-700 text-white hover:bg-red-600 disabled:bg-red-300",
  approve: "bg-emerald-700 text-white hover:bg-emerald-600 disabled:bg-emerald-300",
  ghost:
    "text-slate-600 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800 hover:text-slate-900 dark:hover:text-slate-100 disabled:text-slate-300 dark:disabled:text-slate-600",
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
