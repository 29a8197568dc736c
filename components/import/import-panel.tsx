"use client";

import Link from "next/link";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ColumnHeaders } from "@/components/ui/table";
import { importSummary, type ImportCounts } from "@/lib/dead-letters/ingest/import-summary";
import { splitFeatureCollection } from "@/lib/spatial/collection-envelopes";
import { runImport, type ImportProgress, type ImportResult } from "./run-import";
import { Panel } from "@/components/ui/panel";
import { countOf } from "@/lib/vocabulary/plural";

// Upload a file of envelopes from the dashboard: the same ingest, results and closing line as `redrive import`.
// NDJSON is sent as it is, in slices of whole lines; a GeoJSON FeatureCollection (.geojson, .json) is split into
// one line per feature first, in the browser.

/** Results kept for the table beyond the rejected ones (all of which are kept): the counts cover every record. */
const SHOWN_RESULTS = 1000;

type State =
  | { phase: "idle" }
  | { phase: "running" }
  | { phase: "done"; summary: string; counts: ImportCounts }
  | { phase: "failed"; message: string };

const isCollectionFile = (name: string) => /\.(geo)?json$/i.test(name);

async function asNdjson(file: File): Promise<Blob> {
  if (!isCollectionFile(file.name)) return file;
  const split = splitFeatureCollection(await file.text());
  if (!split.ok) throw new Error(`${file.name}: ${split.error}`);
  return new Blob([split.lines.join("\n")], { type: "application/x-ndjson" });
}

function detail(r: ImportResult): string {
  if (r.status !== "rejected") {
    // A key another sender stored first: that record is not this uploader's, so its id is not given.
    return r.id ?? "stored by another sender";
  }
  const why = r.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; ");
  return r.key !== undefined ? `key ${r.key} — ${why}` : why;
}

const STATUS_CLASS: Record<ImportResult["status"], string> = {
  created: "text-emerald-700 dark:text-emerald-400",
  duplicate: "text-slate-600 dark:text-slate-300",
  rejected: "text-red-700 dark:text-red-400",
};

export function ImportPanel({ records }: { records: { href: string; label: string } | null }) {
  const [file, setFile] = useState<File | null>(null);
  const [state, setState] = useState<State>({ phase: "idle" });
  const [results, setResults] = useState<ImportResult[]>([]);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [onlyRejected, setOnlyRejected] = useState(false);
  const abort = useRef<AbortController | null>(null);

  async function start(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return;
    const controller = new AbortController();
    abort.current = controller;
    setResults([]);
    setProgress(null);
    setState({ phase: "running" });
    const started = performance.now();
    try {
      const body = await asNdjson(file);
      const counts = await runImport(body, {
        signal: controller.signal,
        onResults: (batch, progress) => {
          setResults((prev) => prev.concat(prev.length >= SHOWN_RESULTS ? batch.filter((r) => r.status === "rejected") : batch));
          setProgress(progress);
        },
      });
      setState({ phase: "done", counts, summary: importSummary(counts, (performance.now() - started) / 1000) });
    } catch (err) {
      const message = controller.signal.aborted
        ? "Import stopped. The results above are final; records of the slice in flight may have been stored too (importing the file again answers duplicate for those)."
        : (err as Error).message;
      setState({ phase: "failed", message });
    } finally {
      abort.current = null;
    }
  }

  const running = state.phase === "running";
  const counts = state.phase === "done" ? state.counts : progress?.counts;
  const shown = onlyRejected ? results.filter((r) => r.status === "rejected") : results;
  // A FeatureCollection is sent a feature per line: its "lines" are its features.
  const lineLabel = file && isCollectionFile(file.name) ? "Feature" : "Line";
  const answered = counts ? counts.created + counts.duplicate + counts.rejected : 0;

  return (
    <Panel
      id="import"
      title="Import a file"
      description={
        <>
          NDJSON of envelopes (spatial or AFC, one per line), or a GeoJSON FeatureCollection (<code>.geojson</code>, <code>.json</code>)
          whose features are envelopes. Stored exactly as <code>POST /api/dead-letters</code> and <code>redrive import</code> store them;
          records already stored answer <em>duplicate</em>.
        </>
      }
    >
      <form onSubmit={start} className="flex flex-wrap items-end gap-2">
        <div className="space-y-1">
          <label htmlFor="import-file" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            File to import
          </label>
          <input
            id="import-file"
            type="file"
            accept=".ndjson,.jsonl,.json,.geojson,application/x-ndjson,application/geo+json,application/json"
            disabled={running}
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            className="block text-sm file:mr-2 file:rounded file:border file:border-slate-300 file:bg-white file:px-2 file:py-1 dark:file:border-slate-600 dark:file:bg-slate-800 dark:file:text-slate-100"
          />
        </div>
        <Button type="submit" variant="primary" disabled={!file || running}>
          Import
        </Button>
        {running && (
          <Button onClick={() => abort.current?.abort()} variant="secondary">
            Stop
          </Button>
        )}
      </form>

      {state.phase !== "idle" && (
        <div className="space-y-2" aria-live="polite">
          {(running || state.phase === "done") && (
            <progress
              aria-label="Import progress"
              className="h-2 w-full"
              max={progress?.totalBytes ?? 1}
              value={state.phase === "done" ? (progress?.totalBytes ?? 1) : (progress?.bytesSent ?? 0)}
            />
          )}
          {progress && (
            <p className="text-xs text-slate-600 dark:text-slate-300">
              {progress.bytesSent.toLocaleString("en")} of {progress.totalBytes.toLocaleString("en")} bytes sent ·{" "}
              {countOf(progress.counts.created + progress.counts.duplicate + progress.counts.rejected, "record")} answered
            </p>
          )}
          {state.phase === "done" && (
            <p role="status" className="font-mono text-xs">
              {state.summary}
            </p>
          )}
          {state.phase === "failed" && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {state.message}
            </p>
          )}
          {state.phase === "done" && records && (
            <Link href={records.href} className="text-sm text-blue-700 underline dark:text-blue-400">
              {records.label}
            </Link>
          )}
        </div>
      )}

      {results.length > 0 && (
        <div className="space-y-1">
          <label className="flex items-center gap-1 text-xs text-slate-600 dark:text-slate-300">
            <input type="checkbox" checked={onlyRejected} onChange={(e) => setOnlyRejected(e.target.checked)} />
            Only rejected records
          </label>
          <table className="w-full text-left text-xs">
            <caption className="sr-only">Per-record results</caption>
            <ColumnHeaders look="compact" columns={[lineLabel, "Result", "Id, or key and reason"]} />
            <tbody>
              {shown.map((r) => (
                <tr key={r.index} className="border-t border-slate-100 dark:border-slate-800">
                  {/* The file's own line (blank lines counted), which an editor shows; the record index skips blanks. */}
                  <td className="py-1 pr-3 font-mono" title={`record ${r.index + 1} of the file`}>
                    {r.line ?? r.index + 1}
                  </td>
                  <td className={`py-1 pr-3 font-medium ${STATUS_CLASS[r.status]}`}>{r.status}</td>
                  <td className="py-1 font-mono break-all">{detail(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {answered > results.length && !onlyRejected && (
            <p className="text-xs text-slate-500 dark:text-slate-400">
              Shown: the first {SHOWN_RESULTS.toLocaleString("en")} results and every rejected record; the line above counts them all.
            </p>
          )}
        </div>
      )}
    </Panel>
  );
}
