import Link from "next/link";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { failedAgainAfterReplay } from "./failure-words";

/** "Failed again after replay in batch #N" at the top of a record that came back to triage after its replay. */
export function FailedAgainNotice({ record }: { record: Pick<DeadLetterDetail, "status" | "failures"> }) {
  const failure = failedAgainAfterReplay(record);
  if (failure === null) return null;
  return (
    <p role="status" className="w-full text-sm text-amber-900 dark:text-amber-100 wrap-anywhere">
      <strong>
        Failed again after replay in{" "}
        <Link href={`/replays/${failure.batchId}`} className="underline underline-offset-2">
          batch #{failure.batchId}
        </Link>
      </strong>{" "}
      (<time dateTime={failure.at}>{failure.at.replace("T", " ").slice(0, 19)} UTC</time>, failure #{failure.attempt}): {failure.reason}
    </p>
  );
}
