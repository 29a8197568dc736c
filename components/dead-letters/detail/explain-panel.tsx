"use client";

import { formatCoordinatesInText } from "@/lib/spatial/format-coordinate";
import { useMemo } from "react";
import { reopenedClass } from "@/lib/dead-letters/decisions";
import { validateTap } from "@/lib/afc/tap-schema";
import { explainAnalysis } from "@/lib/dead-letters/triage/explain-analysis";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { partsOf, readDisplayGeometry } from "@/lib/spatial/display";
import { selfIntersectionsOf } from "@/lib/spatial/self-intersections";

// Why the record failed and what was done about it, in sentences: the first failure (kept forever), the
// current one, the class and why, and for spatial records the validity reason and the repair result.

function Row({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    // One column on a phone: a 9-rem term column beside the text left most of a 390-px screen empty.
    <div className="grid gap-x-2 py-1 sm:grid-cols-[9rem_minmax(0,1fr)]">
      <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="text-sm text-slate-800 dark:text-slate-200">{children}</dd>
    </div>
  );
}

/**
 * `record`: as shown — for a spatial record its analysis and repaired geometry are those of the repair chosen on
 * the page (repair-choice.tsx), which is what an approval pins. `repairChoice`: that chooser, beside the repair.
 */
export function ExplainPanel({
  record,
  areaChangeWarn,
  repairChoice,
}: {
  record: DeadLetterDetail;
  areaChangeWarn?: number;
  repairChoice?: React.ReactNode;
}) {
  const geometry =
    record.payload !== null && typeof record.payload === "object" && !Array.isArray(record.payload) ? record.payload.geometry : null;
  const crossings = useMemo(() => selfIntersectionsOf(geometry).points.length, [geometry]);
  const spatial = useMemo(() => {
    if (!record.analysis) return null;
    const repaired = record.repairedGeometry ? readDisplayGeometry(record.repairedGeometry) : null;
    return explainAnalysis(record.analysis, {
      repairedParts: repaired?.ok ? partsOf(repaired.geometry).features.length : null,
      selfIntersections: crossings,
      areaChangeWarn,
    });
  }, [record.analysis, record.repairedGeometry, crossings, areaChangeWarn]);
  // A purged record has no payload left to check.
  const tap = useMemo(
    () => (record.kind === "afc" && record.payload !== null ? validateTap(record.payload) : null),
    [record.kind, record.payload],
  );
  const failures = record.failureCount;
  return (
    // wrap-anywhere: a reason from a producer may be one unbroken word; it wraps instead of widening the page.
    <section
      aria-labelledby="why-heading"
      className="min-w-0 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 wrap-anywhere"
    >
      <h2 id="why-heading" className="mb-1 text-sm font-semibold">
        Why it failed
      </h2>
      <dl className="divide-y divide-slate-100 dark:divide-slate-800">
        <Row term="First failure">{formatCoordinatesInText(record.firstFailureReason)}</Row>
        {record.reason !== record.firstFailureReason && <Row term="Latest failure">{formatCoordinatesInText(record.reason)}</Row>}
        <Row term="Failures">
          {failures} {failures === 1 ? "attempt" : "attempts"}; replayed {record.replayCount} {record.replayCount === 1 ? "time" : "times"}
        </Row>
        <Row term="Class">
          <span className="font-medium">{record.failureClass.replace("_", " ")}</span>
          {record.classReason && <span className="text-slate-600 dark:text-slate-300"> — {record.classReason}</span>}
          {record.failureClass === "poison" && record.status !== "purged" && record.status !== "replayed" && (
            <span className="block text-xs text-red-700 dark:text-red-300">
              {reopenedClass(record.kind, record)
                ? "The replay gave up on it (the sink kept failing), not on its payload: reopen or release it to approve and replay it again."
                : "Poison records cannot be approved until the payload is edited into validity."}
            </span>
          )}
        </Row>
        {spatial && (
          <>
            <Row term="Validity">{formatCoordinatesInText(spatial.validity)}</Row>
            <Row term="Repair">
              {repairChoice}
              <ul className="list-disc space-y-0.5 pl-4">
                {spatial.repair.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {spatial.warnings.length > 0 && (
                <div
                  role="alert"
                  aria-label="Repair warnings"
                  className="mt-2 rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2 text-amber-900 dark:text-amber-100"
                >
                  <p className="text-xs font-semibold">
                    {record.status === "approved"
                      ? "⚠ Acknowledged with the approval:"
                      : record.status === "replayed"
                        ? "⚠ Sent with this repair:"
                        : "⚠ Approving this repair needs your acknowledgement:"}
                  </p>
                  <ul className="list-disc space-y-0.5 pl-4">
                    {spatial.warnings.map((w) => (
                      <li key={w.message}>{w.message}</li>
                    ))}
                  </ul>
                </div>
              )}
            </Row>
          </>
        )}
        {tap && (
          <Row term="Tap schema now">
            {tap.ok ? (
              <span className="text-emerald-800 dark:text-emerald-200">The current payload passes the tap schema.</span>
            ) : (
              <ul className="list-disc pl-4">
                {tap.errors.map((e) => (
                  <li key={e.path + e.message}>
                    <code className="text-xs">{e.path}</code>: {e.message}
                  </li>
                ))}
              </ul>
            )}
          </Row>
        )}
      </dl>
    </section>
  );
}
