import { Badge, type Tone } from "@/components/ui/badge";
import type { FailureGroupView, GroupStatus } from "@/lib/dead-letters/contract/groups";

const TONE: Record<GroupStatus, Tone> = { open: "amber", acknowledged: "blue", resolved: "green", ignored: "slate" };

export function GroupStatusBadge({ group }: { group: Pick<FailureGroupView, "status" | "regression" | "regressedAt"> }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Badge tone={TONE[group.status]}>{group.status}</Badge>
      {group.regression && (
        <Badge tone="red" title={group.regressedAt ? `new records arrived after it was resolved (${group.regressedAt})` : undefined}>
          regression
        </Badge>
      )}
    </span>
  );
}

export function when(t: string | null): string {
  return t ? t.slice(0, 16).replace("T", " ") : "—";
}
