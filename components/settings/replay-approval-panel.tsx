"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { fetchJson } from "@/lib/api/client";
import type { SingleApproverSetting } from "@/lib/replay/batch/batch-schemas";
import { accountKeys } from "./queries";
import { ErrorAlert } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

// The admin's exception to four eyes: batches of at most N records may be approved by the supervisor who created
// them (0 keeps a second approver for every batch). The server checks it when a batch is approved and audits
// both the change here and every approval it allows.

const recordCount = (n: number) => `${n.toLocaleString("en")} record${n === 1 ? "" : "s"}`;
const when = (iso: string | null) => (iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "");

export function ReplayApprovalPanel({ initial }: { initial: SingleApproverSetting }) {
  const qc = useQueryClient();
  const [setting, setSetting] = useState(initial);
  const [value, setValue] = useState(String(initial.limit));
  const save = useMutation({
    mutationFn: (limit: number) => fetchJson<SingleApproverSetting>("/api/settings/replay-approval", { method: "PUT", body: { limit } }),
    onSuccess: (s) => {
      setSetting(s);
      setValue(String(s.limit));
      toast.success(
        s.limit === 0
          ? "Every replay batch now needs a second approver."
          : `Batches of up to ${recordCount(s.limit)} may now be approved by one supervisor.`,
      );
      return qc.invalidateQueries({ queryKey: accountKeys.all });
    },
  });
  const parsed = /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
  return (
    <Panel
      id="approval"
      title="Replay approval (four eyes)"
      description={
        <>
          A replay batch needs a second supervisor to approve it. Batches of at most this many records may be approved by the supervisor who
          created them (say 1, to replay a single approved record at once); 0 keeps four eyes for every batch. Changes and every approval
          they allow are audited.
        </>
      }
    >
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (parsed !== null) save.mutate(parsed);
        }}
      >
        <div className="space-y-1">
          <label htmlFor="single-approver-limit" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            One supervisor may approve batches of up to (records)
          </label>
          <input
            id="single-approver-limit"
            inputMode="numeric"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={parsed === null}
            className="block w-32 rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm"
          />
        </div>
        <Button type="submit" variant="primary" disabled={save.isPending || parsed === null || parsed === setting.limit}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
      </form>
      {parsed === null && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          A whole number, 0 or more.
        </p>
      )}
      {save.error && <ErrorAlert>{save.error.message}</ErrorAlert>}
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="approval-setting">
        {setting.limit === 0
          ? "Now: every batch needs a second approver"
          : `Now: batches of up to ${recordCount(setting.limit)} need one approver`}
        {setting.updatedBy ? ` (set by ${setting.updatedBy}, ${when(setting.updatedAt)})` : ""}.
      </p>
    </Panel>
  );
}
