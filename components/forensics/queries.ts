"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { isSessionEnd, poll } from "@/components/session-ended";
import { fetchJson } from "@/lib/api/client";
import type { AlertEventView, AlertRuleView } from "@/lib/ops/alerts/alert-rules";
import type { AlertRuleCreate, AlertRuleUpdate } from "@/lib/forensics/forensics-schemas";
import type { QuarantineBody, QuarantineGroup } from "@/lib/dead-letters/contract/quarantine";

// One hook per forensics resource, keyed by a factory so mutations invalidate exactly what they change.

export const forensicsKeys = {
  all: ["forensics"] as const,
  overview: () => [...forensicsKeys.all, "overview"] as const,
  quarantine: () => [...forensicsKeys.all, "quarantine"] as const,
  alerts: () => [...forensicsKeys.all, "alerts"] as const,
};

/** `renderedAt`: when the server read `initial` (see useDeadLetterList). */
export function useQuarantineGroups(initial: QuarantineGroup[], renderedAt: number) {
  return useQuery({
    queryKey: forensicsKeys.quarantine(),
    queryFn: ({ signal }) => fetchJson<{ groups: QuarantineGroup[] }>("/api/quarantine/groups", { signal }).then((r) => r.groups),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
  });
}

export function useQuarantineAction(action: "release" | "purge") {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: QuarantineBody) =>
      fetchJson<{ released?: number; purged?: number; skipped: number }>(`/api/quarantine/${action}`, { method: "POST", body }),
    onSuccess: (r) => {
      const n = r.released ?? r.purged ?? 0;
      toast.success(
        `${action === "release" ? "Released" : "Purged"} ${n.toLocaleString("en")} record${n === 1 ? "" : "s"}${r.skipped ? `, ${r.skipped} skipped` : ""}`,
      );
      void qc.invalidateQueries({ queryKey: forensicsKeys.all });
      void qc.invalidateQueries({ queryKey: ["dead-letters"] });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
      // A 409 means the group changed since it was shown: show its current count, so confirming again can work.
      void qc.invalidateQueries({ queryKey: forensicsKeys.quarantine() });
    },
  });
}

export function useAlerts(initial: { rules: AlertRuleView[]; events: AlertEventView[] }, renderedAt: number) {
  return useQuery({
    queryKey: forensicsKeys.alerts(),
    queryFn: ({ signal }) => fetchJson<{ rules: AlertRuleView[]; events: AlertEventView[] }>("/api/alerts", { signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: () => poll(30_000),
  });
}

export function useUpdateAlertRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: AlertRuleUpdate }) =>
      fetchJson<AlertRuleView>(`/api/alerts/${id}`, { method: "PATCH", body: patch }),
    // One toast per rule: a save replaces the error of an earlier attempt instead of stacking under it.
    onSuccess: (r) => {
      toast.success(`Saved rule ${r.name || r.id}`, { id: `alert-rule-${r.id}` });
      void qc.invalidateQueries({ queryKey: forensicsKeys.all });
    },
    onError: (err, { id }) => {
      if (!isSessionEnd(err)) toast.error(err.message, { id: `alert-rule-${id}` });
    },
  });
}

/** A new rule, e.g. a company-wide default copied for a team. */
export function useCreateAlertRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: AlertRuleCreate) => fetchJson<AlertRuleView>("/api/alerts", { method: "POST", body }),
    onSuccess: (r) => {
      toast.success(`Created rule ${r.name || r.id}${r.team ? ` for ${r.team}` : ""}`);
      void qc.invalidateQueries({ queryKey: forensicsKeys.all });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
    },
  });
}

export function useDeleteAlertRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ deleted: true }>(`/api/alerts/${id}`, { method: "DELETE" }),
    onSuccess: (_r, id) => {
      toast.success(`Removed rule ${id}`, { id: `alert-rule-${id}` });
      void qc.invalidateQueries({ queryKey: forensicsKeys.all });
    },
    onError: (err, id) => {
      if (!isSessionEnd(err)) toast.error(err.message, { id: `alert-rule-${id}` });
    },
  });
}
