import type { OriginDestination } from "@/lib/replay/batch/batch-schemas";
import { fmt } from "./format";

// Where a batch back to origin publishes: every distinct destination of its records, with counts, so the supervisor
// who creates it and the one who approves it see where the messages will go. A destination outside its source's
// options.destinations is marked: creating the batch refuses its records.

export function DestinationsList({ destinations, caption }: { destinations: OriginDestination[]; caption: string }) {
  const refused = destinations.filter((d) => !d.allowed);
  return (
    <div className="space-y-1" data-testid="origin-destinations">
      <table className="w-full text-left text-xs">
        <caption className="mb-1 text-left text-sm font-medium">{caption}</caption>
        <thead className="text-slate-500 dark:text-slate-400">
          <tr>
            <th scope="col" className="py-0.5 pr-3 font-normal">
              Source
            </th>
            <th scope="col" className="py-0.5 pr-3 font-normal">
              Destination
            </th>
            <th scope="col" className="py-0.5 text-right font-normal">
              Records
            </th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {destinations.map((d) => (
            <tr
              key={`${d.source}\u0000${d.destination}`}
              className={d.allowed ? "" : "text-red-800 dark:text-red-200"}
              data-allowed={d.allowed}
            >
              <td className="whitespace-nowrap py-0.5 pr-3">{d.source}</td>
              <td className="break-all py-0.5 pr-3">
                {d.destination === "" ? <span className="font-sans italic">unknown</span> : d.destination}
                {!d.allowed && <span className="font-sans"> — outside the source&apos;s destinations</span>}
              </td>
              <td className="py-0.5 text-right tabular-nums">{fmt(d.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {refused.length > 0 && (
        <p role="alert" className="text-xs text-red-800 dark:text-red-200">
          {fmt(refused.reduce((n, d) => n + d.count, 0))} record(s) would go where their source does not allow (its options.destinations):
          creating this batch back to origin is refused. Leave them out, or quarantine them.
        </p>
      )}
    </div>
  );
}
