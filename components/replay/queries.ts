"use client";

import { isSessionEnd, poll } from "@/components/session-ended";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { toast } from "sonner";
import { fetchJson } from "@/lib/api/client";
import type { BatchView, CreateBatchRequest, ItemsPage, ItemStatus, RateSeries } from "@/lib/replay/batch/batch-schemas";
import { isLive } from "@/lib/replay/batch/progress";
import { actionToast, type BatchAction } from "@/lib/replay/batch/batch-states";
import { countOf } from "@/lib/vocabulary/plural";

// One hook per replay resource, keyed by a factory (bull-board's queryKeys pattern); live views poll about
// once a second while a batch can still change, and stop when it is finished.

export const replayKeys = {
  all: ["replays"] as const,
  lists: () => [...replayKeys.all, "list"] as const,
  details: () => [...replayKeys.all, "detail"] as const,
  detail: (id: string) => [...replayKeys.details(), id] as const,
  items: (id: string, status: ItemStatus | null, cursor: number) => [...replayKeys.detail(id), "items", status ?? "all", cursor] as const,
  rate: (id: string) => [...replayKeys.detail(id), "rate"] as const,
};

const livePoll = (live: boolean) => poll(live ? 1000 : false);

/**
 * Polling stops when the batch stops being live, and the last poll of its items or rate may predate the end (a
 * finished batch's table still said "running"): fetch once more when `live` turns false.
 */
function useFinalRefetch(live: boolean, refetch: () => unknown) {
  const wasLive = useRef(live);
  useEffect(() => {
    if (wasLive.current && !live) void refetch();
    wasLive.current = live;
  }, [live, refetch]);
}

/** `renderedAt`: when the server read `initial` (see useDeadLetterList in components/dead-letters/use-dead-letter-queries.ts). */
export function useBatches(initial?: BatchView[], renderedAt?: number) {
  return useQuery({
    queryKey: replayKeys.lists(),
    queryFn: async ({ signal }) => (await fetchJson<{ batches: BatchView[] }>("/api/replays", { signal })).batches,
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: () => poll(2000),
  });
}

export function useBatch(id: string, initial?: BatchView, renderedAt?: number) {
  return useQuery({
    queryKey: replayKeys.detail(id),
    queryFn: ({ signal }) => fetchJson<BatchView>(`/api/replays/${id}`, { signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    staleTime: 0,
    refetchInterval: (q) => livePoll(isLive(q.state.data)),
  });
}

export function useRateSeries(id: string, live: boolean) {
  const query = useQuery({
    queryKey: replayKeys.rate(id),
    queryFn: ({ signal }) => fetchJson<RateSeries>(`/api/replays/${id}/rate?window=300`, { signal }),
    staleTime: 0,
    refetchInterval: () => livePoll(live),
  });
  useFinalRefetch(live, query.refetch);
  return query;
}

export function useItems(id: string, status: ItemStatus | null, cursor: number, live: boolean) {
  const q = new URLSearchParams({ limit: "50", ...(cursor ? { cursor: String(cursor) } : {}), ...(status ? { status } : {}) });
  const query = useQuery({
    queryKey: replayKeys.items(id, status, cursor),
    queryFn: ({ signal }) => fetchJson<ItemsPage>(`/api/replays/${id}/items?${q.toString()}`, { signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: () => livePoll(live),
  });
  useFinalRefetch(live, query.refetch);
  return query;
}

export function useBatchAction(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (action: BatchAction) => fetchJson<BatchView>(`/api/replays/${id}/${action}`, { method: "POST" }),
    // A poll in flight when the action answers would overwrite its answer with the state from before.
    onMutate: () => qc.cancelQueries({ queryKey: replayKeys.detail(id) }),
    onSuccess: (batch, action) => {
      qc.setQueryData(replayKeys.detail(id), batch);
      toast.success(actionToast(id, action));
    },
    onError: (err, action) => {
      if (!isSessionEnd(err)) toast.error(`Could not ${action} batch ${id}: ${err.message}`);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: replayKeys.all }),
  });
}

export function useCreateBatch() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateBatchRequest) =>
      fetchJson<BatchView & { skipped: Record<string, number> }>("/api/replays", { method: "POST", body }),
    onSuccess: (batch) => {
      toast.success(`Draft batch ${batch.id} created with ${countOf(batch.total, "record")}: it needs approval before it starts`);
      return qc.invalidateQueries({ queryKey: replayKeys.lists() });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(`Could not create the batch: ${err.message}`);
    },
  });
}
