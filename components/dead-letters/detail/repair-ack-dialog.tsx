"use client";

import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import type { RepairPreview } from "@/lib/dead-letters/contract/repair-preview";

/**
 * Approving a repair that changes the geometry's type or a large share of its area asks first: the approval
 * records what the analyst acknowledged. Used by the record page's Approve / `a` and the list's `a`.
 */
export function RepairAckDialog({
  preview,
  recordId,
  busy,
  onCancel,
  onConfirm,
}: {
  /** the repair to approve; null: closed */
  preview: RepairPreview | null;
  recordId: string;
  busy?: boolean;
  onCancel: () => void;
  onConfirm: (preview: RepairPreview) => void;
}) {
  return (
    <Dialog open={preview !== null} onClose={onCancel} title={`Approve #${recordId} with this repair?`}>
      {preview && (
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm(preview);
          }}
        >
          <p className="text-sm text-slate-700 dark:text-slate-300">
            The replay will send the geometry as repaired by <strong>{preview.method}</strong> with policy <strong>{preview.policy}</strong>
            , and nothing else. This repair:
          </p>
          <ul className="list-disc space-y-1 pl-5 text-sm text-amber-900 dark:text-amber-100">
            {preview.warnings.map((w) => (
              <li key={w.message}>{w.message}</li>
            ))}
          </ul>
          <div className="flex items-center justify-end gap-2">
            <Button onClick={onCancel}>Cancel</Button>
            <Button type="submit" variant="approve" disabled={busy} autoFocus>
              Acknowledge and approve
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
