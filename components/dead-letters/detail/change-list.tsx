import { ColumnHeaders, DividedBody } from "@/components/ui/table";
import type { Change } from "@/lib/dead-letters/query/payload-diff";
import { stringifyWithCoordinates } from "@/lib/spatial/format-coordinate";

// A diff as a list of paths with before → after, rendered as text (never HTML).

// Coordinates (a geometry's positions, a bbox) are rounded as everywhere else on the page (format-coordinate.ts).
const COORDINATES = /\/(coordinates|bbox)(\/|$)/;
/** A value as text, cut past 2,000 characters (a replaced ring of 250,000 positions is megabytes). */
const SHOWN_CHARS = 2_000;
const show = (v: unknown, path: string) => {
  if (v === undefined) return "";
  const text = COORDINATES.test(path) ? stringifyWithCoordinates(v) : JSON.stringify(v);
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}… (${text.length.toLocaleString("en")} characters)`;
};

export function ChangeList({ changes, truncated, empty }: { changes: Change[]; truncated: boolean; empty: string }) {
  if (changes.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">{empty}</p>;
  return (
    <div className="max-h-80 overflow-auto">
      <table className="w-full text-left text-xs">
        <ColumnHeaders look="compact-narrow" columns={["Path", "Before", "After"]} />
        <DividedBody className="font-mono">
          {changes.map((c) => (
            <tr key={c.path + c.kind}>
              <td className="py-1 pr-2 align-top text-slate-700 dark:text-slate-300">{c.path || "(whole payload)"}</td>
              <td className="break-all py-1 pr-2 align-top text-red-700 dark:text-red-300">
                {c.kind === "added" ? <em className="not-italic text-slate-500 dark:text-slate-400">(absent)</em> : show(c.before, c.path)}
              </td>
              <td className="break-all py-1 align-top text-emerald-800 dark:text-emerald-200">
                {c.kind === "removed" ? (
                  <em className="not-italic text-slate-500 dark:text-slate-400">(removed)</em>
                ) : (
                  show(c.after, c.path)
                )}
              </td>
            </tr>
          ))}
        </DividedBody>
      </table>
      {truncated && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">More changes not shown.</p>}
    </div>
  );
}
