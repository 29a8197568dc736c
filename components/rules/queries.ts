"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { isSessionEnd } from "@/components/session-ended";
import { fetchJson } from "@/lib/api/client";
import type { CreateRuleBody, DryRunBody, PatchRuleBody, RuleJobView, RuleView } from "@/lib/rules/rule-schemas";

// One hook per triage-rule resource, keyed by a factory so mutations invalidate exactly what they change.

export const ruleKeys = {
  all: ["rules"] as const,
  list: () => [...ruleKeys.all, "list"] as const,
  one: (id: string) => [...ruleKeys.all, "one", id] as const,
  dryRun: (id: string, body: DryRunBody) => [...ruleKeys.all, "dry-run", id, JSON.stringify(body)] as const,
};

export function useRules(initial: RuleView[], renderedAt: number) {
  return useQuery({
    queryKey: ruleKeys.list(),
    queryFn: ({ signal }) => fetchJson<{ rules: RuleView[] }>("/api/rules", { signal }).then((r) => r.rules),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
  });
}

/** One rule with every version (the list carries the latest alone). */
export function useRule(id: string, enabled: boolean) {
  return useQuery({
    queryKey: ruleKeys.one(id),
    enabled,
    queryFn: ({ signal }) => fetchJson<RuleView>(`/api/rules/${id}`, { signal }),
  });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)));
  });

/** A rule's dry run (of `body`, the editor's draft, when given): a long one is a job, polled until it ends. */
export function useDryRun(id: string | null, body: DryRunBody, enabled: boolean) {
  return useQuery({
    queryKey: ruleKeys.dryRun(id ?? "", body),
    enabled: enabled && id !== null,
    staleTime: 10_000,
    retry: false,
    queryFn: async ({ signal }) => {
      let { job } = await fetchJson<{ job: RuleJobView }>(`/api/rules/${id}/dry-run`, { method: "POST", body, signal });
      while (job.status === "running") {
        await sleep(500, signal);
        job = await fetchJson<RuleJobView>(`/api/rules/${id}/jobs/${job.id}`, { signal });
      }
      return job;
    },
  });
}

function useRuleMutation<T>(fn: (input: T) => Promise<RuleView>, done: (rule: RuleView) => string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (rule) => {
      toast.success(done(rule));
      void qc.invalidateQueries({ queryKey: ruleKeys.all });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
    },
  });
}

export const useCreateRule = () =>
  useRuleMutation(
    (body: CreateRuleBody) => fetchJson<RuleView>("/api/rules", { method: "POST", body }),
    (r) => `Rule ${r.name} drafted: another supervisor approves it`,
  );

export const usePatchRule = () =>
  useRuleMutation(
    ({ id, body }: { id: string; body: PatchRuleBody }) => fetchJson<RuleView>(`/api/rules/${id}`, { method: "PATCH", body }),
    (r) => (r.status === "disabled" ? `Rule ${r.name} disabled` : `Rule ${r.name} v${r.version} drafted: it waits for approval`),
  );

export const useApproveRule = () =>
  useRuleMutation(
    ({ id, version }: { id: string; version: number }) =>
      fetchJson<RuleView>(`/api/rules/${id}/approve`, { method: "POST", body: { version } }),
    (r) => `Rule ${r.name} v${r.activeVersion} approved: it decides new arrivals now`,
  );

export const useResumeRule = () =>
  useRuleMutation(
    ({ id }: { id: string }) => fetchJson<RuleView>(`/api/rules/${id}/resume`, { method: "POST" }),
    (r) => `Rule ${r.name}: standing replay resumed`,
  );

export function useApplyRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, version }: { id: string; version: number }) =>
      fetchJson<{ job: RuleJobView }>(`/api/rules/${id}/apply`, { method: "POST", body: { version } }).then((r) => r.job),
    onSuccess: (job) => {
      toast.success(`Applying the rule to ${job.total.toLocaleString("en")} matching record${job.total === 1 ? "" : "s"}`);
      void qc.invalidateQueries({ queryKey: ruleKeys.all });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
    },
  });
}
