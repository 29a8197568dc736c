"use client";

import { useState, type ReactNode } from "react";
import { toast } from "sonner";
import type { DeadLetterSummary } from "@/lib/dead-letters/contract/list";
import type { ActionBody } from "@/lib/dead-letters/contract/decision";
import type { RepairPreview } from "@/lib/dead-letters/contract/repair-preview";
import { fetchJson } from "@/lib/api/client";
import { RepairAckDialog } from "../detail/repair-ack-dialog";
import { decide } from "@/lib/dead-letters/decisions";
import { ConflictDialog, type Conflict } from "../detail/conflict-dialog";
import { ReasonDialog } from "../detail/quarantine-dialog";
import { conflictChangedBy, conflictCurrent, useDecision } from "../use-dead-letter-queries";

// `a` / `q` on the list's highlighted row: the same decision the record's page makes, without opening it. The
// version sent is the one the row shows, so a record someone changed since the list loaded answers 409 and the
// conflict dialog shows what changed (status, class, version; the list has no payloads to compare) instead of
// the decision overwriting it. Quarantine asks for its reason first, as on the record's page; so does approving a
// repaired geometry whose repair changes its type or a large share of its area (the source's default repair, the
// one the record's page shows first, is previewed and pinned with its digest).

export type RowAction = "approve" | "quarantine";

export function useRowDecisions({ canTriage, onDecided }: { canTriage: boolean; onDecided: (row: DeadLetterSummary) => void }): {
  act: (row: DeadLetterSummary | undefined, action: RowAction) => void;
  busy: boolean;
  dialogs: ReactNode;
} {
  const decision = useDecision();
  const [asking, setAsking] = useState<DeadLetterSummary | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [ack, setAck] = useState<{ row: DeadLetterSummary; preview: RepairPreview } | null>(null);
  const [previewing, setPreviewing] = useState(false);

  const approveWith = (row: DeadLetterSummary, p: RepairPreview) => {
    const acknowledged = p.warnings.map((w) => w.message);
    submit(row, {
      action: "approve",
      version: row.version,
      repair: { method: p.method, policy: p.policy, digest: p.digest!, ...(acknowledged.length > 0 ? { acknowledged } : {}) },
    });
  };

  /** A repaired spatial record: preview its default repair, ask when it needs acknowledging, approve with its digest. */
  const approveRepaired = async (row: DeadLetterSummary) => {
    setPreviewing(true);
    try {
      const p = await fetchJson<RepairPreview>(`/api/dead-letters/${row.id}/repair-preview`);
      if (!p.digest) toast.error(`Cannot approve #${row.id}`, { description: "Its repair delivers nothing: open it to choose another." });
      else if (p.warnings.length > 0) setAck({ row, preview: p });
      else approveWith(row, p);
    } catch {
      toast.error(`Could not preview the repair of #${row.id}`, { description: "Open the record to approve it." });
    } finally {
      setPreviewing(false);
    }
  };

  const submit = (row: DeadLetterSummary, body: ActionBody) => {
    decision.mutate(
      { id: row.id, body, from: row.status },
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
    if (!row || !canTriage || decision.isPending || previewing) return;
    const check = decide(row, action, { reason: "(asked next)" });
    if (!check.ok) {
      toast.error(`Cannot ${action} #${row.id}`, { description: check.message });
      return;
    }
    if (action === "quarantine") setAsking(row);
    else if (row.kind === "spatial" && row.outcome === "repaired") void approveRepaired(row);
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
      <RepairAckDialog
        preview={ack?.preview ?? null}
        recordId={ack?.row.id ?? ""}
        busy={decision.isPending}
        onCancel={() => setAck(null)}
        onConfirm={(p) => {
          const row = ack?.row;
          setAck(null);
          if (row) approveWith(row, p);
        }}
      />
      <ConflictDialog conflict={conflict} onClose={() => setConflict(null)} closeLabel="Back to the list (it shows the current version)" />
    </>
  );
  return { act, busy: decision.isPending || previewing, dialogs };
}
