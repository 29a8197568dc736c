import type { SavedView } from "@/lib/dead-letters/contract/views";

/** A view's live count: "≈" when the list's count was estimated, "—" past the count cap. */
export function ViewCount({ view, className = "" }: { view: SavedView; className?: string }) {
  const c = view.count;
  return (
    <span
      className={`tabular-nums text-xs text-slate-500 dark:text-slate-400 ${className}`}
      title={c ? (c.exact ? "records matching now" : "estimated") : "not counted"}
    >
      {c ? `${c.exact ? "" : "≈"}${c.total.toLocaleString("en")}` : "—"}
    </span>
  );
}
