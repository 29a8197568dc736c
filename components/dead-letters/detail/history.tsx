import { ColumnHeaders, DividedBody } from "@/components/ui/table";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { howItFailed } from "./failure-words";

export function History({ failures }: { failures: DeadLetterDetail["failures"] }) {
  if (failures.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">No failure attempts recorded.</p>;
  return (
    <table className="w-full text-left text-xs">
      <ColumnHeaders look="compact" columns={["#", "When (UTC)", "How", "Reason"]} />
      <DividedBody>
        {failures.map((f) => (
          <tr key={f.attempt}>
            <td className="py-1 pr-3 tabular-nums">{f.attempt}</td>
            <td className="whitespace-nowrap py-1 pr-3 tabular-nums">
              <time dateTime={f.at}>{f.at.replace("T", " ").slice(0, 19)}</time>
            </td>
            <td className="py-1 pr-3">{howItFailed(f)}</td>
            <td className="py-1 wrap-anywhere">{f.reason}</td>
          </tr>
        ))}
      </DividedBody>
    </table>
  );
}
