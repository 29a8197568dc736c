"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { isSessionEnd, poll } from "@/components/session-ended";
import { useState } from "react";
import { fetchJson, HttpError } from "@/lib/api/client";
import type { FailureGroupDetail, FailureGroupView, GroupPatch, GroupSort } from "@/lib/dead-letters/contract/groups";

// One hook per failure-group resource. Both poll every few seconds: two analysts on the same group see each
// other's status, owner and notes without reloading.

export const GROUP_POLL_MS = 3_000;

export const groupKeys = {
  all: ["groups"] as const,
  list: (sort: GroupSort, status: string) => [...groupKeys.all, "list", sort, status] as const,
  one: (id: string) => [...groupKeys.all, "one", id] as const,
};

/** `renderedAt`: when the server read `initial` (see useDeadLetterList); `initial` only for the URL's own sort/status. */
export function useGroups(sort: GroupSort, status: string, initial: FailureGroupView[] | undefined, renderedAt: number) {
  return useQuery({
    queryKey: groupKeys.list(sort, status),
    queryFn: ({ signal }) =>
      fetchJson<{ groups: FailureGroupView[] }>(`/api/groups?${new URLSearchParams({ sort, ...(status ? { status } : {}) })}`, {
        signal,
      }).then((r) => r.groups),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    placeholderData: (previous) => previous,
    refetchInterval: () => poll(GROUP_POLL_MS),
  });
}

export function useGroup(initial: FailureGroupDetail, renderedAt: number) {
  return useQuery({
    queryKey: groupKeys.one(initial.id),
    queryFn: ({ signal }) => fetchJson<FailureGroupDetail>(`/api/groups/${initial.id}`, { signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: () => poll(GROUP_POLL_MS),
  });
}

/**
 * A change to the group. `conflict`: the last change was refused because the group had changed since it was read
 * (409 on its version); the group is read again, and the flag holds until the next change succeeds.
 */
export function usePatchGroup(id: string) {
  const qc = useQueryClient();
  const [conflict, setConflict] = useState(false);
  const mutation = useMutation({
    mutationFn: (patch: GroupPatch) => fetchJson<FailureGroupDetail>(`/api/groups/${id}`, { method: "PATCH", body: patch }),
    onSuccess: (group) => {
      setConflict(false);
      qc.setQueryData(groupKeys.one(id), group);
      void qc.invalidateQueries({ queryKey: groupKeys.all });
    },
    onError: (err) => {
      const stale = err instanceof HttpError && err.status === 409;
      setConflict(stale);
      if (!stale && !isSessionEnd(err)) toast.error(err.message);
      void qc.invalidateQueries({ queryKey: groupKeys.one(id) });
    },
  });
  return Object.assign(mutation, { conflict });
}
