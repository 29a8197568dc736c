"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { MAX_REASON_LENGTH } from "@/lib/dead-letters/decisions";

/** Asks for the reason a quarantine requires; Enter confirms. Also used for bulk quarantine. */
export function ReasonDialog({
  open,
  title,
  confirmLabel,
  onCancel,
  onConfirm,
  busy,
  children,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  onCancel: () => void;
  onConfirm: (reason: string) => void;
  busy?: boolean;
  children?: React.ReactNode;
}) {
  const [reason, setReason] = useState("");
  const blank = reason.trim() === "";
  return (
    <Dialog open={open} onClose={onCancel} title={title}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!blank) onConfirm(reason.trim());
        }}
        className="space-y-3"
      >
        {children}
        <div className="space-y-1">
          <label htmlFor="quarantine-reason" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Reason (required)
          </label>
          <input
            id="quarantine-reason"
            autoFocus
            value={reason}
            maxLength={MAX_REASON_LENGTH}
            onChange={(e) => setReason(e.target.value)}
            className="block w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm"
            placeholder="e.g. producer sends test data from this device"
          />
        </div>
        <div className="flex items-center justify-end gap-2">
          {blank && (
            <span className="mr-auto text-xs text-slate-500 dark:text-slate-400">
              Say why: the reason stays with the record and in the audit log.
            </span>
          )}
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="submit" variant="danger" disabled={blank || busy}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
