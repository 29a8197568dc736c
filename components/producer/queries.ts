"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/api/client";
import type { OwnRecordsPage } from "@/lib/dead-letters/contract/own-records";

// The producer's own records (GET /api/producer/records), one page per status filter and cursor.

export const producerKeys = {
  all: ["producer"] as const,
  records: (status: string, cursor: string | null) => [...producerKeys.all, "records", status, cursor] as const,
};

export function useOwnRecords(status: string, cursor: string | null, initialData?: OwnRecordsPage) {
  const params = new URLSearchParams();
  if (status) params.set("status", status);
  if (cursor) params.set("cursor", cursor);
  return useQuery({
    queryKey: producerKeys.records(status, cursor),
    queryFn: () => fetchJson<OwnRecordsPage>(`/api/producer/records${params.size ? `?${params}` : ""}`),
    initialData: status === "" && cursor === null ? initialData : undefined,
    placeholderData: keepPreviousData,
  });
}
