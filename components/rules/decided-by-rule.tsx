import Link from "next/link";
import type { DecidedByRule } from "@/lib/rules/rule-schemas";

const VERB = { approved: "Approved", quarantined: "Quarantined", replayed: "Approved" } as const;

/** "Approved by rule bowtie-sliver v3 (approved by A and B)": who decided a record a rule decided. */
export function DecidedByRuleNote({ decidedBy, status }: { decidedBy: DecidedByRule; status: string }) {
  const verb = VERB[status as keyof typeof VERB] ?? "Decided";
  const { rule, approvers } = decidedBy;
  return (
    <p className="w-full text-sm text-slate-700 dark:text-slate-200" data-testid="decided-by-rule">
      {verb} by rule{" "}
      <Link
        href={`/rules?rule=${rule.id}`}
        className="font-semibold italic text-sky-800 underline-offset-2 hover:underline dark:text-sky-200"
      >
        {rule.name}
      </Link>{" "}
      v{rule.version}
      {approvers.length > 0 && <> (approved by {approvers.join(" and ")})</>}
    </p>
  );
}
