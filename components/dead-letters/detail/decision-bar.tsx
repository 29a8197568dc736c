"use client";

import { Button, Kbd, type ButtonVariant } from "@/components/ui/button";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { validateTap } from "@/lib/afc/tap-schema";
import { availableActions, type TriageAction } from "@/lib/dead-letters/decisions";

// The decisions the state machine allows on this record; a disabled button says why in its tooltip.

const LOOK: Record<TriageAction, { label: string; key: string; variant: ButtonVariant }> = {
  approve: { label: "Approve", key: "a", variant: "approve" },
  quarantine: { label: "Quarantine…", key: "q", variant: "danger" },
  reopen: { label: "Reopen", key: "r", variant: "secondary" },
  edit: { label: "Edit", key: "e", variant: "secondary" },
};

export function DecisionBar({
  record,
  canTriage,
  busy,
  editing,
  onAction,
}: {
  record: DeadLetterDetail;
  canTriage: boolean;
  busy: boolean;
  editing: boolean;
  onAction: (action: TriageAction) => void;
}) {
  if (!canTriage) return <p className="text-xs text-slate-500 dark:text-slate-400">Your role can read but not decide.</p>;
  const actions = availableActions(record).filter((a) => a.enabled || a.action !== "reopen");
  return (
    <div role="toolbar" aria-label="Decide" className="flex flex-wrap items-center gap-2">
      {actions.map(({ action, enabled, why }) => {
        const look = LOOK[action];
        const disabled = !enabled || busy || (editing && action !== "edit");
        return (
          <Button
            key={action}
            variant={look.variant}
            disabled={disabled || (editing && action === "edit")}
            title={why ?? undefined}
            onClick={() => onAction(action)}
          >
            {look.label} <Kbd>{look.key}</Kbd>
          </Button>
        );
      })}
      {!availableActions(record).some((a) => a.enabled) && (
        <span className="text-xs text-slate-500 dark:text-slate-400">This record is {record.status}: no decision applies.</span>
      )}
      {record.status === "pending" && record.kind === "afc" && record.payload !== null && !validateTap(record.payload).ok && (
        <span className="text-xs text-amber-800 dark:text-amber-200">
          The tap still fails its schema: approved as it is, the replay re-validates it and drops it. Edit it first.
        </span>
      )}
    </div>
  );
}
