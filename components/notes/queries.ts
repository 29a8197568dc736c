"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { isSessionEnd, poll } from "@/components/session-ended";
import { fetchJson } from "@/lib/api/client";
import type { MentionList, Note } from "@/lib/dead-letters/contract/notes";

// Notes on a record and the reader's mentions. Polled every few seconds, so two analysts on the same record see
// each other's notes without reloading.

export const NOTES_POLL_MS = 3_000;

export const noteKeys = {
  all: ["notes"] as const,
  record: (id: string) => [...noteKeys.all, "record", id] as const,
  mentions: () => [...noteKeys.all, "mentions"] as const,
};

export function useNotes(recordId: string) {
  return useQuery({
    queryKey: noteKeys.record(recordId),
    queryFn: ({ signal }) => fetchJson<{ items: Note[] }>(`/api/dead-letters/${recordId}/notes`, { signal }).then((r) => r.items),
    refetchInterval: () => poll(NOTES_POLL_MS),
  });
}

export function useAddNote(recordId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => fetchJson<Note>(`/api/dead-letters/${recordId}/notes`, { method: "POST", body: { text } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: noteKeys.record(recordId) });
      // The timeline shows notes too.
      void qc.invalidateQueries({ queryKey: ["forensics"] });
    },
    onError: (err) => {
      if (!isSessionEnd(err)) toast.error(err.message);
    },
  });
}

export function useMentions() {
  return useQuery({
    queryKey: noteKeys.mentions(),
    queryFn: ({ signal }) => fetchJson<MentionList>("/api/notes/mentions", { signal }),
    refetchInterval: () => poll(15_000),
  });
}
