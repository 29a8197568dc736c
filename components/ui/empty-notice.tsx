/**
 * What stands in place of a list or table that has nothing to show: a dashed box with a muted sentence.
 * `inline`: smaller and left-aligned, for a section of a page rather than the page's main list.
 */
export function EmptyNotice({ children, inline = false }: { children: React.ReactNode; inline?: boolean }) {
  return (
    <p
      className={
        inline
          ? "rounded border border-dashed border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 p-4 text-sm text-slate-500 dark:text-slate-400"
          : "rounded border border-dashed border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 p-8 text-center text-sm text-slate-500 dark:text-slate-400"
      }
    >
      {children}
    </p>
  );
}
