"use client";

import { useState, type ReactNode } from "react";
import { toast } from "sonner";
import type { DeadLetterSummary } from "@/lib/dead-letters/query/list";
import type { ActionBody } from "@/lib/dead-letters/record-schemas";
import { decide } from "@/lib/dead-letters/decisions";
import { ConflictDialog, type Conflict } from "../detail/conflict-dialog";
import { ReasonDialog } from "../detail/quarantine-dialog";
import { conflictChangedBy, conflictCurrent, useDecision } from "../queries";

// `a` / `q` on the list's highlighted row: the same decision the record's page makes, without opening it. The
// version sent is the one the row shows, so a record someone changed since the list loaded answers 409 and the
// conflict dialog shows what changed (status, class, version; the list has no payloads to compare) instead of
// the decision overwriting it. Quarantine asks for its reason first, as on the record's page.

export type RowAction = "approve" | "quarantine";

export function useRowDecisions({ canTriage, onDecided }: { canTriage: boolean; onDecided: (row: DeadLetterSummary) => void }): {
  act: (row: DeadLetterSummary | undefined, action: RowAction) => void;
  busy: boolean;
  dialogs: ReactNode;
} {
  const decision = useDecision();
  const [asking, setAsking] = useState<DeadLetterSummary | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);

  const submit = (row: DeadLetterSummary, body: ActionBody) => {
    decision.mutate(
      { id: row.id, body },
      {
        onSuccess: () => onDecided(row),
        onError: (err) => {
          const current = conflictCurrent(err);
          if (current) setConflict({ attempted: body.action, seen: row, current, changedBy: conflictChangedBy(err) });
        },
      },
    );
  };

  const act = (row: DeadLetterSummary | undefined, action: RowAction) => {
    if (!row || !canTriage || decision.isPending) return;
    const check = decide(row, action, { reason: "(asked next)" });
    if (!check.ok) {
      toast.error(`Cannot ${action} #${row.id}`, { description: check.message });
      return;
    }
    if (action === "quarantine") setAsking(row);
    else submit(row, { action: "approve", version: row.version });
  };

  const dialogs = (
    <>
      <ReasonDialog
        key={`q-${asking?.id ?? "none"}`}
        open={asking !== null}
        title={`Quarantine #${asking?.id ?? ""}`}
        confirmLabel="Quarantine"
        busy={decision.isPending}
        onCancel={() => setAsking(null)}
        onConfirm={(reason) => {
          const row = asking;
          setAsking(null);
          if (row) submit(row, { action: "quarantine", version: row.version, reason });
        }}
      />
      <ConflictDialog conflict={conflict} onClose={() => setConflict(null)} closeLabel="Back to the list (it shows the current version)" />
    </>
  );
  return { act, busy: decision.isPending, dialogs };
}
