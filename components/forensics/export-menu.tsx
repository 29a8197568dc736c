"use client";

import { useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { usePopover } from "@/components/ui/use-popover";
import { errorMessage } from "@/lib/api/client";
import { filterToParams } from "@/lib/dead-letters/filter-url";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { ExportFormat } from "@/lib/forensics/forensics-schemas";
import { countOf, plural } from "@/lib/vocabulary/plural";

// "Export ▾" for the list and quarantine pages: the current filter as NDJSON, CSV or GeoJSON from
// GET /api/export. Read through fetch + a reader rather than a plain link so the page can show what has
// arrived (records by newline for NDJSON/CSV, bytes always) and cancel; the server streams from a cursor, so
// the first bytes arrive at once whatever the export's size.

const FORMATS: { format: ExportFormat; excel?: boolean; label: string; hint: string }[] = [
  { format: "ndjson", label: "NDJSON", hint: "envelopes as ingested: re-importable with redrive import when unmasked" },
  { format: "csv", label: "CSV", hint: "one row per record, payload as JSON" },
  { format: "csv", excel: true, label: "CSV for Excel", hint: "the same CSV with a UTF-8 mark, so Excel shows accents and symbols right" },
  { format: "geojson", label: "GeoJSON", hint: "spatial records: original and repaired geometries" },
];

/** A refusal the server explains (422: e.g. GeoJSON of a filter without spatial records): nothing went wrong. */
class NothingToExport extends Error {}

interface Progress {
  format: ExportFormat;
  bytes: number;
  records: number;
  estimate: number | null;
}

const fmtBytes = (n: number) => (n < 1e6 ? `${(n / 1e3).toFixed(0)} kB` : `${(n / 1e6).toFixed(1)} MB`);

export function ExportMenu({ filter, canUnmask = false }: { filter: ListFilter; canUnmask?: boolean }) {
  const { open, setOpen, flip, box, toggle } = usePopover();
  const [unmask, setUnmask] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const abort = useRef<AbortController | null>(null);

  async function run(format: ExportFormat, excel = false) {
    setOpen(false);
    const params = filterToParams(filter);
    params.set("format", format);
    if (excel) params.set("excel", "1");
    if (unmask) params.set("unmask", "1");
    const controller = new AbortController();
    abort.current = controller;
    try {
      const res = await fetch(`/api/export?${params.toString()}`, { credentials: "same-origin", signal: controller.signal });
      if (!res.ok || !res.body) {
        const body: unknown = await res.json().catch(() => null);
        const message = errorMessage(res.status, body);
        throw res.status === 422 ? new NothingToExport(message) : new Error(message);
      }
      const estimate = Number(res.headers.get("x-redrive-estimated-count") ?? "NaN");
      const state: Progress = { format, bytes: 0, records: 0, estimate: Number.isFinite(estimate) ? estimate : null };
      setProgress({ ...state });
      const reader = res.body.getReader();
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let lastPaint = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        state.bytes += value.length;
        // NDJSON and CSV: one record per line (CSV quotes newlines inside cells only in payloads, close enough
        // for a progress figure); GeoJSON: one feature per line.
        for (let i = 0; i < value.length; i++) if (value[i] === 10) state.records++;
        if (performance.now() - lastPaint > 100) {
          lastPaint = performance.now();
          setProgress({ ...state });
        }
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? `dead-letters.${format}`;
      const url = URL.createObjectURL(new Blob(chunks, { type: res.headers.get("content-type") ?? "application/octet-stream" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast.success(`Exported ${fmtBytes(state.bytes)} as ${format.toUpperCase()}${excel ? " for Excel" : ""}`);
    } catch (err) {
      if (controller.signal.aborted) toast.info("Export cancelled");
      else if (err instanceof NothingToExport) toast.info(`Nothing exported: ${err.message}`);
      else toast.error(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      abort.current = null;
      setProgress(null);
    }
  }

  const lines = progress ? (progress.format === "csv" ? Math.max(0, progress.records - 1) : progress.records) : 0;
  return (
    <div ref={box} className="relative inline-block shrink-0 text-sm max-sm:static">
      {progress ? (
        <div
          role="status"
          aria-live="polite"
          className="flex items-center gap-2 rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-1.5"
        >
          <span>
            Exporting {progress.format.toUpperCase()}: {lines.toLocaleString("en")}
            {/* GeoJSON counts features, one to three per record (original, edited, repaired): not "of" the records */}
            {progress.format === "geojson"
              ? ` feature${lines === 1 ? "" : "s"}${progress.estimate !== null ? ` (from about ${countOf(progress.estimate, "record")})` : ""}`
              : `${progress.estimate !== null ? ` / ${progress.estimate.toLocaleString("en")}` : ""} ${plural(progress.estimate ?? lines, "record")}`}
            , {fmtBytes(progress.bytes)}
          </span>
          <Button size="sm" variant="ghost" onClick={() => abort.current?.abort()}>
            Cancel
          </Button>
        </div>
      ) : (
        <Button ref={toggle} aria-haspopup="menu" aria-expanded={open} onClick={flip}>
          Export ▾
        </Button>
      )}
      {open && (
        <div
          role="menu"
          className="absolute right-0 z-20 mt-1 w-72 max-w-[calc(100vw-2rem)] rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-1 shadow-lg"
        >
          {FORMATS.map((f) => (
            <button
              key={f.label}
              role="menuitem"
              type="button"
              onClick={() => void run(f.format, f.excel)}
              className="block w-full rounded px-2 py-1.5 text-left hover:bg-slate-100 dark:hover:bg-slate-800"
            >
              <span className="font-medium">{f.label}</span>
              <span className="block text-xs text-slate-500 dark:text-slate-400">{f.hint}</span>
            </button>
          ))}
          {canUnmask && (
            <label className="flex items-center gap-2 border-t border-slate-100 dark:border-slate-800 px-2 py-1.5 text-xs text-slate-600 dark:text-slate-300">
              <input type="checkbox" checked={unmask} onChange={(e) => setUnmask(e.target.checked)} />
              Card data in clear (audited)
            </label>
          )}
        </div>
      )}
    </div>
  );
}
