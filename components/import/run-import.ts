// The dashboard's import: a file sent to POST /api/dead-letters as NDJSON, a request per slice of whole lines,
// one after the other (the server stores a request's records in input order; a second request at the same time
// would only compete with the first for the same threads). Each answer's results are renumbered from the start
// of the file (record index and line), so they read as `redrive import --results` prints them.

import { errorMessage, HttpError } from "@/lib/api/client";
import type { ImportCounts } from "@/lib/dead-letters/ingest/import-summary";
import type { IngestResult } from "@/lib/dead-letters/ingest/arrival-outcome";
import { lineEnds, ndjsonRanges } from "./ndjson-chunks";

export type ImportResult = IngestResult;

export interface ImportProgress {
  bytesSent: number;
  totalBytes: number;
  counts: ImportCounts;
}

/** About 1 MB per request: progress moves every second or so, and an answer stays small. */
export const IMPORT_REQUEST_BYTES = 1024 * 1024;

interface IngestAnswer {
  results?: IngestResult[];
  error?: { message?: string };
}

/** Sends `file` (NDJSON) and reports each answered slice; resolves with the counts once every record is answered. */
export async function runImport(
  file: Blob,
  opts: {
    onResults: (results: ImportResult[], progress: ImportProgress) => void;
    signal?: AbortSignal;
    requestBytes?: number;
  },
): Promise<ImportCounts> {
  const counts: ImportCounts = { created: 0, duplicate: 0, rejected: 0 };
  let answered = 0;
  let linesBefore = 0; // the file's lines before this slice
  for await (const { start, end } of ndjsonRanges(file, opts.requestBytes ?? IMPORT_REQUEST_BYTES)) {
    const body = new Uint8Array(await file.slice(start, end).arrayBuffer());
    const res = await fetch("/api/dead-letters", {
      method: "POST",
      credentials: "same-origin",
      signal: opts.signal,
      headers: { accept: "application/json", "content-type": "application/x-ndjson" },
      body,
    });
    const text = await res.text();
    let data: IngestAnswer | null = null;
    try {
      data = text ? (JSON.parse(text) as IngestAnswer) : null;
    } catch {
      data = null;
    }
    if (!res.ok) throw new HttpError(res.status, errorMessage(res.status, data), data);
    // The server numbers records and lines within the slice: from the start of the file here.
    const offset = linesBefore;
    const results = (data?.results ?? []).map((r) => ({
      ...r,
      index: answered + r.index,
      ...(r.line !== undefined ? { line: offset + r.line } : {}),
    }));
    linesBefore += lineEnds(body);
    for (const r of results) counts[r.status]++;
    answered += results.length;
    opts.onResults(results, { bytesSent: end, totalBytes: file.size, counts: { ...counts } });
    // The server stopped part-way (database gone): what was answered stands, the rest was not stored.
    if (data?.error) throw new HttpError(500, `ingest stopped: records from index ${answered} on were not stored`, data);
  }
  return counts;
}
