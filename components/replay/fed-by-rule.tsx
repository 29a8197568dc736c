import Link from "next/link";
import type { BatchView } from "@/lib/replay/batch/batch-schemas";

/** The triage rule whose approvals feed a standing replay batch: its name (a link to it on /rules) and version. */
export function FedByRule({ rule }: { rule: NonNullable<BatchView["rule"]> }) {
  return (
    <>
      rule{" "}
      <Link href={`/rules?rule=${rule.id}`} className="font-medium text-sky-800 underline-offset-2 hover:underline dark:text-sky-200">
        {rule.name}
      </Link>{" "}
      v{rule.version}
    </>
  );
}
