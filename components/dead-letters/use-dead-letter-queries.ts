"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { approveWarning } from "@/lib/dead-letters/triage/approve-warning";
import { toast } from "sonner";
import { forensicsKeys } from "@/components/forensics/queries";
import { isSessionEnd } from "@/components/session-ended";
import { fetchJson, HttpError } from "@/lib/api/client";
import { filterKey, filterToParams, LIST_PAGE_SIZE } from "@/lib/dead-letters/filter-url";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { ActionBody, ChangedBy } from "@/lib/dead-letters/contract/decision";
import type { Arrivals } from "@/lib/dead-letters/contract/list";
import type { BulkBody, BulkJob, BulkJobAccepted, BulkResult } from "@/lib/dead-letters/contract/bulk";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import type { Facets } from "@/lib/dead-letters/contract/facets";
import type { MapPoints } from "@/lib/dead-letters/contract/map";
import type { RepairPreview } from "@/lib/dead-letters/contract/repair-preview";
import type { ApprovedRepair, DeadLetterStatus, RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import { UNDO_WINDOW_MS, undoBody, type UndoableAction } from "@/lib/dead-letters/triage/undo-action";
import type { Extent } from "@/lib/dead-letters/contract/map";
import type { ListPage } from "@/lib/dead-letters/contract/list";

// One hook per resource of the triage UI, keyed by a factory so mutations invalidate exactly what they change
// (bull-board's hooks/queryKeys.ts pattern). Filters are keyed by their canonical query string.

export const deadLetterKeys = {
  all: ["dead-letters"] as const,
  lists: () => [...deadLetterKeys.all, "list"] as const,
  list: (filter: ListFilter) => [...deadLetterKeys.lists(), filterKey(filter)] as const,
  facets: (filter: ListFilter) => [...deadLetterKeys.all, "facets", filterKey(filter)] as const,
  mapPoints: (filter: ListFilter, view: string, zoom: number) => [...deadLetterKeys.all, "map", filterKey(filter), view, zoom] as const,
  extent: (filter: ListFilter) => [...deadLetterKeys.all, "extent", filterKey(filter)] as const,
  arrivals: (filter: ListFilter, after: string) => [...deadLetterKeys.all, "arrivals", filterKey(filter), after] as const,
  details: () => [...deadLetterKeys.all, "detail"] as const,
  detail: (id: string) => [...deadLetterKeys.details(), id] as const,
  neighbor: (filter: ListFilter, cursor: string, dir: "next" | "prev") =>
    [...deadLetterKeys.all, "neighbor", filterKey(filter), cursor, dir] as const,
  bulkJob: (id: string) => ["bulk-jobs", id] as const,
  repairPreview: (id: string, version: number, method: string, policy: string) =>
    [...deadLetterKeys.all, "repair-preview", id, version, method, policy] as const,
};

/** The repair preview's query (GET …/repair-preview), keyed by the record's version: an edit changes what a repair gives. */
export function repairPreviewQuery(id: string, version: number, repair: { method: RepairMethod; policy: RepairPolicy }) {
  return {
    queryKey: deadLetterKeys.repairPreview(id, version, repair.method, repair.policy),
    queryFn: ({ signal }: { signal: AbortSignal }) =>
      fetchJson<RepairPreview>(
        `/api/dead-letters/${id}/repair-preview?${new URLSearchParams({ method: repair.method, policy: repair.policy }).toString()}`,
        { signal },
      ),
    staleTime: 60_000,
  };
}

/** What approving a spatial record with this repair would replay; the previous answer stays on screen while the next loads. */
export function useRepairPreview(id: string, version: number, repair: { method: RepairMethod; policy: RepairPolicy } | null) {
  const fallback = { method: "linework", policy: "accept" } as const;
  return useQuery({ ...repairPreviewQuery(id, version, repair ?? fallback), enabled: repair !== null, placeholderData: keepPreviousData });
}

const qs = (filter: ListFilter, extra: Record<string, string> = {}) => {
  const p = filterToParams(filter);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p.toString();
};

// Server-rendered data seeds a query as of `renderedAt`, the time the server read it: a page restored by the
// browser's Back minutes later (Next's router cache) then refetches instead of passing its old data off as new.

export function useDeadLetterList(filter: ListFilter, initial?: ListPage, renderedAt?: number) {
  return useInfiniteQuery({
    queryKey: deadLetterKeys.list(filter),
    queryFn: ({ pageParam, signal }) =>
      fetchJson<ListPage>(
        `/api/dead-letters?${qs(filter, { limit: String(LIST_PAGE_SIZE), ...(pageParam ? { cursor: pageParam } : {}) })}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: initial ? ({ pages: [initial], pageParams: [null] } satisfies InfiniteData<ListPage, string | null>) : undefined,
    initialDataUpdatedAt: renderedAt,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

export function useFacets(filter: ListFilter, initial?: Facets, renderedAt?: number) {
  return useQuery({
    queryKey: deadLetterKeys.facets(filter),
    queryFn: ({ signal }) => fetchJson<Facets>(`/api/dead-letters/facets?${qs(filter)}`, { signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

export function useMapPoints(filter: ListFilter, view: [number, number, number, number] | null, zoom: number) {
  const viewKey = view ? view.map((v) => v.toFixed(3)).join(",") : "";
  // MapLibre zooms out to -2 (a small map showing the whole world): the grid is no coarser below 0.
  const z = Math.max(0, Math.round(zoom));
  return useQuery({
    queryKey: deadLetterKeys.mapPoints(filter, viewKey, z),
    queryFn: ({ signal }) =>
      fetchJson<MapPoints>(`/api/dead-letters/map-points?${qs({ ...filter, bbox: view ?? undefined }, { zoom: String(z) })}`, { signal }),
    enabled: view !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** Where the records matching `filter` (its bbox left out) are; `enabled` false while the map leads the filter. */
export function useExtent(filter: ListFilter, enabled: boolean) {
  return useQuery({
    queryKey: deadLetterKeys.extent(filter),
    queryFn: ({ signal }) => fetchJson<Extent>(`/api/dead-letters/extent?${qs(filter)}`, { signal }),
    enabled,
    staleTime: 30_000,
  });
}

/** How often the list asks whether records arrived under its filter (one capped count over the new rows). */
export const ARRIVALS_POLL_MS = 4_000;

/**
 * The records that arrived under `filter` since this list showed it: a watermark taken as the list is shown (the
 * newest id then), then a capped count above it every few seconds. `reset` takes a new watermark, as the list is
 * refetched to show them.
 */
export function useArrivals(filter: ListFilter) {
  const qc = useQueryClient();
  // Dropped as the list unmounts (gcTime 0): a list shown again counts from then, not from an old watermark.
  const base = useQuery({
    queryKey: deadLetterKeys.arrivals(filter, ""),
    queryFn: ({ signal }) => fetchJson<Arrivals>(`/api/dead-letters/arrivals?${qs(filter)}`, { signal }),
    staleTime: Infinity,
    gcTime: 0,
  });
  const after = base.data?.watermark;
  const since = useQuery({
    queryKey: deadLetterKeys.arrivals(filter, after ?? ""),
    queryFn: ({ signal }) => fetchJson<Arrivals>(`/api/dead-letters/arrivals?${qs(filter, { after: after! })}`, { signal }),
    enabled: after !== undefined,
    refetchInterval: (q) => (q.state.status === "error" ? false : ARRIVALS_POLL_MS),
    gcTime: 0,
  });
  const reset = async () => {
    await Promise.all([
      qc.invalidateQueries({ queryKey: deadLetterKeys.list(filter) }),
      qc.invalidateQueries({ queryKey: deadLetterKeys.facets(filter) }),
      qc.invalidateQueries({ queryKey: [...deadLetterKeys.all, "map"] }),
      base.refetch(),
    ]);
  };
  const data = after !== undefined && since.data && since.data.count > 0 ? since.data : null;
  return { count: data?.count ?? 0, capped: data?.capped ?? false, reset };
}

export function useDeadLetter(id: string, initial?: DeadLetterDetail, renderedAt?: number) {
  return useQuery({
    queryKey: deadLetterKeys.detail(id),
    queryFn: ({ signal }) => fetchJson<DeadLetterDetail>(`/api/dead-letters/${id}`, { signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    staleTime: 5_000,
  });
}

/** The record after (next: older) or before (prev: newer) `cursor` under the list's filter and order. */
export function useNeighbor(filter: ListFilter, cursor: string | null, dir: "next" | "prev") {
  return useQuery({
    queryKey: deadLetterKeys.neighbor(filter, cursor ?? "", dir),
    queryFn: async ({ signal }) => {
      const page = await fetchJson<ListPage>(
        `/api/dead-letters?${qs(filter, { cursor: cursor!, limit: "1", order: dir === "next" ? "desc" : "asc" })}`,
        { signal },
      );
      return page.items[0]?.id ?? null;
    },
    enabled: cursor !== null,
    staleTime: 5_000,
  });
}

const VERB: Record<ActionBody["action"], string> = { approve: "Approved", quarantine: "Quarantined", reopen: "Reopened", edit: "Saved" };

/** An API error in words that name the field and the rule, for toasts. */
export function describeError(err: unknown): string {
  if (err instanceof HttpError) {
    const body = err.body as { error?: { issues?: { path: string; message: string }[] } } | null;
    const issues = body?.error?.issues;
    if (issues?.length) return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The record as it is now, when a decision answered 409 because someone else changed it. */
export function conflictCurrent(err: unknown): DeadLetterDetail | null {
  if (!(err instanceof HttpError) || err.status !== 409) return null;
  const current = (err.body as { error?: { current?: DeadLetterDetail } } | null)?.error?.current;
  return current ?? null;
}

/** Who changed the record, from a 409 that says so. */
export function conflictChangedBy(err: unknown): ChangedBy | null {
  if (!(err instanceof HttpError) || err.status !== 409) return null;
  return (err.body as { error?: { changedBy?: ChangedBy | null } } | null)?.error?.changedBy ?? null;
}

/**
 * The queries a decision on one record makes stale: lists, counts, map, neighbours — and what the overview and the
 * quarantine page count, which a cached copy would otherwise show as fresh for its staleTime after navigating there.
 */
function invalidateAfterDecision(qc: ReturnType<typeof useQueryClient>): void {
  void qc.invalidateQueries({ queryKey: forensicsKeys.all });
  void qc.invalidateQueries({ queryKey: deadLetterKeys.lists() });
  void qc.invalidateQueries({ queryKey: [...deadLetterKeys.all, "facets"] });
  void qc.invalidateQueries({ queryKey: [...deadLetterKeys.all, "map"] });
  void qc.invalidateQueries({ queryKey: [...deadLetterKeys.all, "neighbor"] });
}

/** Where the record was before a decision: what its undo goes back to. */
interface Before {
  from?: DeadLetterStatus;
  approvedRepair?: ApprovedRepair | null;
}

/**
 * The decision's inverse (undo-action.ts), sent at the version the decision produced: audited like any decision;
 * when someone acted on the record meanwhile the server answers 409 and the undo is refused with that conflict.
 */
async function undo(qc: ReturnType<typeof useQueryClient>, id: string, body: ActionBody, done: UndoableAction): Promise<void> {
  try {
    const record = await fetchJson<DeadLetterDetail>(`/api/dead-letters/${id}/actions`, { method: "POST", body });
    qc.setQueryData(deadLetterKeys.detail(id), record);
    toast.success(`Undid ${done} of #${id}`, { description: `Now ${record.status}, version ${record.version}` });
  } catch (err) {
    if (isSessionEnd(err)) return;
    const by = conflictChangedBy(err);
    if (conflictCurrent(err))
      toast.warning(`Undo refused: #${id} changed under you`, {
        description: by
          ? `${by.email ?? "someone"} (${by.action.replace("dead_letter.", "")}) acted on it since; open it to decide again.`
          : "Someone acted on it since; open it to decide again.",
      });
    else toast.error(`Could not undo ${done} of #${id}`, { description: describeError(err) });
  } finally {
    invalidateAfterDecision(qc);
  }
}

function decisionCallbacks(qc: ReturnType<typeof useQueryClient>) {
  return {
    onSuccess: (record: DeadLetterDetail, id: string, body: ActionBody, before: Before = {}) => {
      qc.setQueryData(deadLetterKeys.detail(id), record);
      const inverse =
        body.action !== "edit" && before.from
          ? undoBody({ action: body.action, from: before.from, approvedRepair: before.approvedRepair }, record.version)
          : null;
      const undoAction =
        inverse && body.action !== "edit"
          ? { label: "Undo", onClick: () => void undo(qc, id, inverse, body.action as UndoableAction) }
          : undefined;
      const options = undoAction ? { action: undoAction, duration: UNDO_WINDOW_MS } : {};
      // Approved as it is, a tap that fails its schema is dropped by the replay: say so wherever it was approved.
      const warning = body.action === "approve" ? approveWarning(record.kind, record.payload) : null;
      if (warning) toast.warning(`${VERB[body.action]} #${id}, but it ${warning}`, options);
      else
        toast.success(`${VERB[body.action]} #${id}`, {
          description: body.action === "edit" ? `Now ${record.status}, ${record.failureClass.replace("_", " ")}` : undefined,
          ...options,
        });
    },
    onError: (err: unknown, id: string) => {
      // A 409 with the current record is shown by the page (what changed), not as a toast only.
      if (isSessionEnd(err)) return;
      if (conflictCurrent(err)) toast.warning(`#${id} changed under you`, { description: "Review what changed, then decide again." });
      else toast.error(`Could not save #${id}`, { description: describeError(err) });
    },
  };
}

export function useDeadLetterAction(id: string) {
  const qc = useQueryClient();
  const on = decisionCallbacks(qc);
  return useMutation({
    mutationFn: (body: ActionBody) => fetchJson<DeadLetterDetail>(`/api/dead-letters/${id}/actions`, { method: "POST", body }),
    // The record as the page showed it when the decision was sent: where an undo goes back to.
    onMutate: (): Before => {
      const shown = qc.getQueryData<DeadLetterDetail>(deadLetterKeys.detail(id));
      return { from: shown?.status, approvedRepair: shown?.approvedRepair ?? null };
    },
    onSuccess: (record, body, before) => on.onSuccess(record, id, body, before),
    onError: (err) => on.onError(err, id),
    onSettled: () => invalidateAfterDecision(qc),
  });
}

/** A decision on any record, named in the variables: the list's `a` / `q` on its highlighted row (`from`: its status). */
export function useDecision() {
  const qc = useQueryClient();
  const on = decisionCallbacks(qc);
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ActionBody; from?: DeadLetterStatus }) =>
      fetchJson<DeadLetterDetail>(`/api/dead-letters/${id}/actions`, { method: "POST", body }),
    onSuccess: (record, { id, body, from }) => on.onSuccess(record, id, body, { from }),
    onError: (err, { id }) => on.onError(err, id),
    onSettled: () => invalidateAfterDecision(qc),
  });
}

/** 200 with the result (ids, dry runs) or 202 with a job (a filter: applied by the server in pages). */
export function useBulkAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkBody) => fetchJson<BulkResult | BulkJobAccepted>("/api/dead-letters/bulk", { method: "POST", body }),
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error("Bulk action failed", { description: describeError(err) });
    },
    // A dry run changes nothing; a filter's job is followed up when it ends (bulk-job-progress.tsx).
    onSettled: (_result, _err, body) => {
      if (!body.dryRun) invalidateAfterBulk(qc);
    },
  });
}

/** What a bulk decision (or a bulk job's end) makes stale: every dead-letter query, the overview and quarantine. */
export function invalidateAfterBulk(qc: ReturnType<typeof useQueryClient>): void {
  void qc.invalidateQueries({ queryKey: deadLetterKeys.all });
  void qc.invalidateQueries({ queryKey: forensicsKeys.all });
}

/** A bulk job's progress, polled every second while it runs. */
export function useBulkJob(id: string) {
  return useQuery({
    queryKey: deadLetterKeys.bulkJob(id),
    queryFn: ({ signal }) => fetchJson<BulkJob>(`/api/dead-letters/bulk/${id}`, { signal }),
    // Every second while it runs (and until the first answer); not after it ended or when the poll failed.
    refetchInterval: (q) =>
      q.state.status === "error" ? false : q.state.data === undefined || q.state.data.status === "running" ? 1_000 : false,
  });
}

export function useCancelBulkJob(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => fetchJson<BulkJob>(`/api/dead-letters/bulk/${id}/cancel`, { method: "POST" }),
    onSuccess: (job) => qc.setQueryData(deadLetterKeys.bulkJob(id), job),
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error("Could not cancel", { description: describeError(err) });
    },
  });
}
