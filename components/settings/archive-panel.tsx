"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { fetchJson } from "@/lib/api/client";
import type { ArchiveSetting } from "@/lib/ops/archive-schemas";
import { accountKeys } from "./queries";
import { ErrorAlert } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

// The archive horizon: replayed and purged records older than it leave the dead letters for a compact archive that
// lookup, the timeline and dedup still read. Empty keeps them forever (the default). The server audits each change;
// the housekeeping loop applies it within a minute.

const when = (iso: string | null) => (iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "");
const days = (n: number) => `${n.toLocaleString("en")} day${n === 1 ? "" : "s"}`;

export function ArchivePanel({ initial }: { initial: ArchiveSetting }) {
  const qc = useQueryClient();
  const [setting, setSetting] = useState(initial);
  const [value, setValue] = useState(initial.days === null ? "" : String(initial.days));
  const save = useMutation({
    mutationFn: (d: number | null) => fetchJson<ArchiveSetting>("/api/settings/archive", { method: "PUT", body: { days: d } }),
    onSuccess: (s) => {
      setSetting(s);
      setValue(s.days === null ? "" : String(s.days));
      toast.success(
        s.days === null ? "Settled records are now kept forever." : `Settled records now move to the archive after ${days(s.days)}.`,
      );
      return qc.invalidateQueries({ queryKey: accountKeys.all });
    },
  });
  const text = value.trim();
  const parsed: number | null | undefined = text === "" ? null : /^\d+$/.test(text) && Number(text) >= 1 ? Number(text) : undefined;
  return (
    <Panel
      id="archive"
      title="Archive horizon"
      description={
        <>
          Replayed and purged records lose their payload after {days(setting.retentionDays)} (payload retention). Past this second horizon
          they leave the dead letters altogether: their identity, key, final state and timeline stay in an archive that the lookup and the
          timeline still read, and their key still counts as a duplicate. Leave empty to keep them forever.
        </>
      }
    >
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (parsed !== undefined) save.mutate(parsed);
        }}
      >
        <div className="space-y-1">
          <label htmlFor="archive-days" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Move settled records to the archive after (days)
          </label>
          <input
            id="archive-days"
            inputMode="numeric"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={parsed === undefined}
            className="block w-32 rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1 text-sm"
          />
        </div>
        <Button type="submit" variant="primary" disabled={save.isPending || parsed === undefined || parsed === setting.days}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
      </form>
      {parsed === undefined && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          A whole number of days, 1 or more, or empty to keep settled records forever.
        </p>
      )}
      {save.error && <ErrorAlert>{save.error.message}</ErrorAlert>}
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="archive-setting">
        {setting.days === null
          ? "Now: settled records are kept forever"
          : `Now: settled records move to the archive after ${days(setting.days)}`}
        {setting.updatedBy ? ` (set by ${setting.updatedBy}, ${when(setting.updatedAt)})` : ""}.
      </p>
    </Panel>
  );
}
