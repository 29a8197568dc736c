"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import type { z } from "zod";
import { isSessionEnd, poll } from "@/components/session-ended";
import { fetchJson } from "@/lib/api/client";
import type { CreateSourceBody, PatchSourceBody, PullCounts, SourceView } from "@/lib/sources/source-schemas";
import { addedNotice, pullSummary } from "./source-text";

// One hook per broker-source resource, keyed by a factory; the list polls every 5 s (workers pull in the
// background, so its state moves on its own), and every change invalidates it.

export const sourceKeys = {
  all: ["sources"] as const,
  lists: () => [...sourceKeys.all, "list"] as const,
};

/** `renderedAt`: when the server read `initial` (see useDeadLetterList in components/dead-letters/use-dead-letter-queries.ts). */
export function useSources(initial?: SourceView[], renderedAt?: number) {
  return useQuery({
    queryKey: sourceKeys.lists(),
    queryFn: async ({ signal }) => (await fetchJson<{ sources: SourceView[] }>("/api/sources", { signal })).sources,
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    staleTime: 0,
    refetchInterval: () => poll(5000),
  });
}

const path = (name: string) => `/api/sources/${encodeURIComponent(name)}`;

/** What a client sends (defaults not yet applied). */
export type CreateSourceRequest = z.input<typeof CreateSourceBody>;

/** Errors are the form's to show (a 422 names the field); only success is toasted here. */
export function useCreateSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateSourceRequest) => fetchJson<SourceView>("/api/sources", { method: "POST", body }),
    onSuccess: (source) => {
      const notice = addedNotice(source);
      (notice.ok ? toast.success : toast.warning)(notice.title, {
        description: notice.description,
        duration: notice.ok ? undefined : 15_000,
      });
      return qc.invalidateQueries({ queryKey: sourceKeys.all });
    },
  });
}

export type UpdateSourceRequest = z.input<typeof PatchSourceBody>;

/** Errors are the form's to show (a 422 names the field); only success is toasted here. */
export function useUpdateSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: UpdateSourceRequest }) =>
      fetchJson<SourceView>(path(name), { method: "PATCH", body }),
    onSuccess: (source) => {
      toast.success(`Updated ${source.name}`, {
        description: source.enabled ? "Workers connect with the new settings on their next round." : "It stays paused.",
      });
      return qc.invalidateQueries({ queryKey: sourceKeys.all });
    },
  });
}

export function usePullSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => fetchJson<PullCounts>(`${path(name)}/pull`, { method: "POST" }),
    onSuccess: (counts, name) => toast.success(`Pulled from ${name}`, { description: pullSummary(counts) }),
    onError: (err, name) => {
      if (!isSessionEnd(err)) toast.error(`Could not pull from ${name}`, { description: err.message });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}

export function useSetSourceEnabled() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) =>
      fetchJson<SourceView>(path(name), { method: "PATCH", body: { enabled } }),
    onSuccess: (source) =>
      toast.success(source.enabled ? `Resumed ${source.name}` : `Paused ${source.name}`, {
        description: source.enabled ? "Workers pull it again." : "Workers leave it alone until it is resumed; “Pull now” still works.",
      }),
    onError: (err, { name, enabled }) => {
      if (!isSessionEnd(err)) toast.error(`Could not ${enabled ? "resume" : "pause"} ${name}`, { description: err.message });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}

interface Removed {
  removed: string;
  /** what the source had created on the broker (Redis consumer, NATS advisory stream): removed or why not */
  broker: { cleaned: boolean; error?: string };
}

export function useRemoveSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => fetchJson<Removed>(path(name), { method: "DELETE" }),
    onSuccess: ({ removed, broker }) => {
      if (broker.cleaned) toast.success(`Removed ${removed}`);
      else
        toast.warning(`Removed ${removed}; what it created on the broker is still there`, {
          description: broker.error,
          duration: 15_000,
        });
    },
    onError: (err, name) => {
      if (!isSessionEnd(err)) toast.error(`Could not remove ${name}`, { description: err.message });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}
