"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { isSessionEnd, poll } from "@/components/session-ended";
import { fetchJson } from "@/lib/api/client";
import type { SavedView } from "@/lib/dead-letters/contract/views";

// Saved views of the list, with their live counts (the list's count for each filter), refreshed while shown.

export const viewKeys = {
  all: ["views"] as const,
  list: () => [...viewKeys.all, "list"] as const,
};

export const VIEWS_POLL_MS = 15_000;

export function useSavedViews(enabled = true) {
  return useQuery({
    queryKey: viewKeys.list(),
    queryFn: ({ signal }) => fetchJson<{ items: SavedView[] }>("/api/views?counts=1", { signal }).then((r) => r.items),
    refetchInterval: () => poll(VIEWS_POLL_MS),
    enabled,
  });
}

type Change =
  | { op: "create"; name: string; shared: boolean; filter: string; columns: string[] }
  | { op: "update"; id: string; patch: { name?: string; shared?: boolean; filter?: string; columns?: string[] } }
  | { op: "delete"; id: string }
  | { op: "default"; id: string | null };

function send(c: Change): Promise<unknown> {
  switch (c.op) {
    case "create":
      return fetchJson("/api/views", { method: "POST", body: { name: c.name, shared: c.shared, filter: c.filter, columns: c.columns } });
    case "update":
      return fetchJson(`/api/views/${c.id}`, { method: "PATCH", body: c.patch });
    case "delete":
      return fetchJson(`/api/views/${c.id}`, { method: "DELETE" });
    case "default":
      return fetchJson("/api/views/default", { method: "PUT", body: { viewId: c.id } });
  }
}

const DONE: Record<Change["op"], string> = {
  create: "View saved",
  update: "View changed",
  delete: "View deleted",
  default: "Default view set",
};

export function useViewChange() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: (_r, c) => {
      toast.success(c.op === "default" && c.id === null ? "No default view" : DONE[c.op]);
      void qc.invalidateQueries({ queryKey: viewKeys.all });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
    },
  });
}
