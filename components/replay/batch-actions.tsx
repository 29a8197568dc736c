"use client";

import { useState } from "react";
import { Button, type ButtonVariant } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import type { BatchView } from "@/lib/replay/batch/batch-schemas";
import { availableActions, singleApproverAllowed, type BatchAction } from "@/lib/replay/batch/batch-states";
import { useBatchAction } from "./queries";

// The life-cycle buttons a user may press now (role + status; the server checks both again). Cancel asks for
// confirmation first: it ends the batch for good.

const LABEL: Record<BatchAction, string> = { approve: "Approve", start: "Start", pause: "Pause", resume: "Resume", cancel: "Cancel batch" };
const VARIANT: Record<BatchAction, ButtonVariant> = {
  approve: "approve",
  start: "primary",
  pause: "secondary",
  resume: "primary",
  cancel: "danger",
};

export interface ReplayPermissions {
  canManage: boolean;
  canApprove: boolean;
  userId: string;
  /** the admin's single-approver limit (0: four eyes for every batch) */
  singleApproverLimit: number;
}

export function BatchActions({ batch, perms }: { batch: BatchView; perms: ReplayPermissions }) {
  const act = useBatchAction(batch.id);
  const [confirming, setConfirming] = useState(false);
  const isCreator = batch.createdBy.id === perms.userId;
  const selfApprove = singleApproverAllowed(batch.total, perms.singleApproverLimit);
  const actions = availableActions(batch.status, { canManage: perms.canManage, canApprove: perms.canApprove, isCreator, selfApprove });
  const draftOfMine = batch.status === "draft" && isCreator && perms.canApprove;
  const waitingForOther = draftOfMine && !selfApprove;
  if (actions.length === 0 && !waitingForOther) return null;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {actions.map((a) => (
        <Button
          key={a}
          variant={VARIANT[a]}
          disabled={act.isPending}
          onClick={() => (a === "cancel" ? setConfirming(true) : act.mutate(a))}
        >
          {LABEL[a]}
        </Button>
      ))}
      {waitingForOther && (
        <span className="text-xs text-slate-500 dark:text-slate-400">
          You created this batch: another supervisor must approve it (four-eyes).
        </span>
      )}
      {draftOfMine && selfApprove && (
        <span className="text-xs text-slate-500 dark:text-slate-400">
          You may approve it yourself: the admin allows one supervisor for batches of up to {perms.singleApproverLimit.toLocaleString("en")}{" "}
          {perms.singleApproverLimit === 1 ? "record" : "records"} (audited).
        </span>
      )}
      <Dialog open={confirming} onClose={() => setConfirming(false)} title={`Cancel batch ${batch.id}?`}>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {batch.counts.pending.toLocaleString("en")} unfinished records will not be replayed. Submissions in flight finish; nothing else is
          sent. The records stay approved and can go into a new batch.
        </p>
        <div className="flex justify-end gap-2">
          <Button onClick={() => setConfirming(false)}>Keep running</Button>
          <Button
            variant="danger"
            onClick={() => {
              setConfirming(false);
              act.mutate("cancel");
            }}
          >
            Cancel batch
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
