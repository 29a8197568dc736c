import type { DeadLetterDetail } from "@/lib/dead-letters/record-schemas";

const ORIGIN: Record<string, string> = { ingest: "ingested", capture: "captured at the tap gate", replay: "replay: dropped or gave up" };

export function History({ failures }: { failures: DeadLetterDetail["failures"] }) {
  if (failures.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">No failure attempts recorded.</p>;
  return (
    <table className="w-full text-left text-xs">
      <thead className="text-slate-500 dark:text-slate-400">
        <tr>
          <th scope="col" className="py-1 pr-3 font-medium">
            #
          </th>
          <th scope="col" className="py-1 pr-3 font-medium">
            When (UTC)
          </th>
          <th scope="col" className="py-1 pr-3 font-medium">
            How
          </th>
          <th scope="col" className="py-1 font-medium">
            Reason
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
        {failures.map((f) => (
          <tr key={f.attempt}>
            <td className="py-1 pr-3 tabular-nums">{f.attempt}</td>
            <td className="whitespace-nowrap py-1 pr-3 tabular-nums">
              <time dateTime={f.at}>{f.at.replace("T", " ").slice(0, 19)}</time>
            </td>
            <td className="py-1 pr-3">
              {ORIGIN[f.origin] ?? f.origin}
              {f.batchId ? ` (batch ${f.batchId})` : ""}
            </td>
            <td className="py-1 wrap-anywhere">{f.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
